import AssetSyncModel
import CCurl
import CCurlShim

/// Owns one libcurl easy handle. Not `Sendable`: it belongs to the transfer
/// thread, which is the only one to touch it after it is made.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    /// Header lists set on the handle; libcurl keeps pointers to them until the next set.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// Where libcurl writes the words of its last error; it must live as long as the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init() {
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        self.handle = handle
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Puts every option back to libcurl's default (`curl_easy_reset`, which keeps the handle's
    /// caches) and forgets the headers and the last error, for another download.
    func reset() {
        curl_easy_reset(handle)
        curl_slist_free_all(headerList)
        headerList = nil
        clearError()
        set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    /// Forgets the last error's words, before a new request.
    func clearError() { errorBuffer[0] = 0 }

    /// What went wrong with the last request that ended in `code`: libcurl's words for it when it
    /// left any, else the code's, with control characters escaped (they may quote the server).
    func describe(_ code: CURLcode) -> String {
        QuotedValue.escapingControls(errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code)))
    }

    func set(_ option: CURLoption, _ value: Int) {
        check(asc_easy_setopt_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, _ value: Bool) { set(option, value ? 1 : 0) }

    func set(_ option: CURLoption, offset value: Int64) {
        check(asc_easy_setopt_off_t(handle, option, curl_off_t(value)), option)
    }

    /// libcurl copies string options, so `value` need not outlive the call.
    func set(_ option: CURLoption, _ value: String?) {
        check(asc_easy_setopt_string(handle, option, value), option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) {
        check(asc_easy_setopt_pointer(handle, option, value), option)
    }

    func set(_ option: CURLoption, callback: asc_data_callback?) {
        check(asc_easy_setopt_data_callback(handle, option, callback), option)
    }

    func setProgressCallback(_ callback: asc_xferinfo_callback) {
        check(asc_easy_setopt_xferinfo_callback(handle, callback), CURLOPT_XFERINFOFUNCTION)
    }

    /// Replaces the request's extra headers ("Name: value").
    func setHeaders(_ headers: [String]) {
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        check(asc_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list), CURLOPT_HTTPHEADER)
        curl_slist_free_all(headerList)
        headerList = list
    }

    func string(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard asc_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else {
            return nil
        }
        return String(cString: value)
    }

    /// An option this build of libcurl refuses is a programming error, not a runtime condition.
    private func check(_ code: CURLcode, _ option: CURLoption) {
        precondition(code == CURLE_OK, "curl_easy_setopt(\(option.rawValue)): \(String(cString: curl_easy_strerror(code)))")
    }
}

extension CurlEasy {
    /// Points the handle at `route`'s URL (or `url`, the same one spelled as it was signed) with the
    /// user's headers and `.netrc` when the route may carry credentials, then `extraHeaders`.
    func setRequest(_ route: RequestRoute, options: TransferOptions, extraHeaders: [String] = [], url: String? = nil) {
        set(CURLOPT_URL, url ?? route.url)
        setHeaders((route.sendsCredentials ? options.headers : []) + extraHeaders)
        let netrc = route.sendsCredentials && options.useNetrc ? CURL_NETRC_OPTIONAL : CURL_NETRC_IGNORED
        set(CURLOPT_NETRC, Int(netrc.rawValue))
    }

    /// What every request shares: http and https only, redirects left to `RedirectRule`,
    /// TLS always verified (with `--cacert` added), the proxy, the write size.
    func configureCommon(_ options: TransferOptions) {
        set(CURLOPT_NOSIGNAL, true)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        set(CURLOPT_FOLLOWLOCATION, false)  // redirects are followed by hand, to apply RedirectRule to each hop
        set(CURLOPT_SSL_VERIFYPEER, true)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_BUFFERSIZE, options.bufferSize)
        set(CURLOPT_CONNECTTIMEOUT, options.connectTimeout)
        set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        set(CURLOPT_TCP_KEEPALIVE, true)
        set(CURLOPT_USERAGENT, "assetsync/\(BuildInfo.version)")
        if let proxy = options.proxy { set(CURLOPT_PROXY, proxy) }
        // `--cacert` replaces libcurl's CA bundle; the system's CAs stay trusted through libcurl's CA
        // directory (Debian: /etc/ssl/certs), which OpenSSL reads a certificate at a time, when one is
        // needed. Loading the whole system bundle with the user's file (a CAINFO blob) cost about 0.6 MiB
        // per connection: every handshake parsed it again.
        if let caFile = options.caFile { set(CURLOPT_CAINFO, caFile) }
    }
}
