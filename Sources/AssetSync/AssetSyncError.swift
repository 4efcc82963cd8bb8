/// Why a pull, a plan or a verification could not run, or ended short: what kind of failure it was
/// (to act on), what went wrong (to tell a person) and what to do about it.
public struct AssetSyncError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added: compare with the static members rather than
    /// switching over them.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(named name: String) { self.name = name }

        /// The request, the manifest or a path given is wrong; nothing was downloaded.
        public static let invalidInput = Kind(named: "invalid input")
        /// The network or a server failed (the manifest could not be fetched, or files could not be had).
        public static let remote = Kind(named: "remote failure")
        /// A local system call failed: disk full, permission, I/O.
        public static let localIO = Kind(named: "local I/O failure")
        /// Another run holds the destination's lock.
        public static let lockHeld = Kind(named: "lock held")
        /// The manifest is not trustworthy: its signature is missing, wrong, expired, or older than one accepted.
        public static let untrusted = Kind(named: "untrusted manifest")
        /// The task was cancelled; partial downloads are kept, and the next pull resumes them.
        public static let cancelled = Kind(named: "cancelled")

        /// The kind in words, as `message` would say it ("lock held").
        public var description: String { name }
    }

    /// What kind of failure it was: what a caller decides on.
    public var kind: Kind
    /// What went wrong, naming the file, URL or path, what was expected and what was seen.
    public var message: String
    /// What to do about it, when there is more to say than `message` does.
    public var remedy: String?
    /// The underlying error's words, when there is one.
    public var cause: String?

    /// An error of `kind` saying `message`, as the library makes them; a test double of a caller's
    /// own can make one too.
    public init(kind: Kind, message: String, remedy: String? = nil, cause: String? = nil) {
        self.kind = kind
        self.message = message
        self.remedy = remedy
        self.cause = cause
    }

    /// `message`, then `remedy` after a semicolon when there is one: the line to show a person.
    public var description: String { remedy.map { message + "; " + $0 } ?? message }
}
