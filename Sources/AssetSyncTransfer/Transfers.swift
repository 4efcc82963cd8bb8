import CCurl

/// Process-wide libcurl set-up, done once before any thread starts.
public enum Transfers {
    public static func initialize() {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }
}
