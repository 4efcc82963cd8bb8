#include <isa-l.h>
#include <isa-l/crc.h>
