#include <openssl/evp.h>
#include <openssl/opensslv.h>
