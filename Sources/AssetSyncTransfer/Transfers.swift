package import AssetSyncModel
import CCurl

/// Process-wide libcurl set-up, done once before any thread starts.
package enum Transfers {
    /// libcurl could not set itself up (its TLS library, or memory).
    package struct SetupFailure: ExplainedError, CustomStringConvertible {
        package var description: String
        package var kind: ErrorKind { .localIO }
    }

    package static func initialize() throws(SetupFailure) {
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard code == CURLE_OK else { throw SetupFailure(description: String(cString: curl_easy_strerror(code))) }
    }
}
