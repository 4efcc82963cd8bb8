import CCurl

extension TransportEnd {
    /// The end libcurl reports as `code`.
    init(_ code: CURLcode) {
        switch code {
        case CURLE_OK: self = .ok
        case CURLE_COULDNT_CONNECT: self = .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST: self = .hostNotFound
        case CURLE_PEER_FAILED_VERIFICATION: self = .certificateRefused
        case CURLE_SSL_CONNECT_ERROR: self = .tlsFailed
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_SSL_CACERT_BADFILE, CURLE_LOGIN_DENIED,
             CURLE_REMOTE_ACCESS_DENIED:
            self = .requestRefused
        case CURLE_FILESIZE_EXCEEDED: self = .tooLarge
        case CURLE_WRITE_ERROR: self = .writeRefused
        case CURLE_ABORTED_BY_CALLBACK: self = .aborted
        case CURLE_PARTIAL_FILE: self = .partialBody
        case CURLE_OPERATION_TIMEDOUT: self = .timedOut
        default: self = .other
        }
    }
}
