// Typed wrappers of libcurl's variadic calls, which Swift cannot call.
// One function per argument kind, all prefixed `asc_`; no logic lives here.
#ifndef ASSETSYNC_CCURLSHIM_H
#define ASSETSYNC_CCURLSHIM_H

#include <curl/curl.h>

#pragma clang assume_nonnull begin

typedef size_t (*asc_data_callback)(char *_Nullable buffer, size_t size, size_t count, void *_Nullable owner);
typedef int (*asc_xferinfo_callback)(void *_Nullable owner, curl_off_t dltotal, curl_off_t dlnow,
                                     curl_off_t ultotal, curl_off_t ulnow);

CURLcode asc_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode asc_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode asc_easy_setopt_string(CURL *handle, CURLoption option, const char *_Nullable value);
CURLcode asc_easy_setopt_pointer(CURL *handle, CURLoption option, void *_Nullable value);
CURLcode asc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *_Nullable value);
CURLcode asc_easy_setopt_data_callback(CURL *handle, CURLoption option, asc_data_callback _Nullable value);
CURLcode asc_easy_setopt_xferinfo_callback(CURL *handle, asc_xferinfo_callback _Nullable value);

CURLcode asc_easy_getinfo_string(CURL *handle, CURLINFO info, const char *_Nullable *_Nonnull value);

CURLMcode asc_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

#pragma clang assume_nonnull end

#endif
