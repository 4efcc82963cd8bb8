/// What one source of a file answered, when the file failed after more than one source.
package struct SourceFailure: Sendable, Equatable {
    package var url: String
    /// What was seen there (`HTTP 503`, a connection error, a CRC mismatch): a file fails only
    /// once every one of its sources was asked, those marked bad earlier in the run included.
    package var reason: String

    package init(url: String, reason: String) {
        self.url = url
        self.reason = reason
    }
}
