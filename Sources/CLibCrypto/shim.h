#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/hmac.h>
