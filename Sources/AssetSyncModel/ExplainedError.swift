/// The one shape of the library's errors: a kind, a message saying what went wrong and what
/// to do, the remedy that only the command line can word (it names options), and the cause.
package protocol ExplainedError: Error {
    var kind: ErrorKind { get }
    /// What went wrong and what to do, in words that name no command-line option.
    var message: String { get }
    /// What else a person can do, beyond `message`.
    var remedy: Remedy? { get }
    /// The underlying error, when there is one.
    var cause: (any Error)? { get }
}

extension ExplainedError {
    package var remedy: Remedy? { nil }
    package var cause: (any Error)? { nil }
}

extension ExplainedError where Self: CustomStringConvertible {
    package var message: String { description }
}
