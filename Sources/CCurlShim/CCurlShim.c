#include "CCurlShim.h"

CURLcode asc_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode asc_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode asc_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode asc_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode asc_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode asc_easy_setopt_data_callback(CURL *handle, CURLoption option, asc_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
CURLcode asc_easy_setopt_xferinfo_callback(CURL *handle, asc_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

CURLcode asc_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode asc_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
