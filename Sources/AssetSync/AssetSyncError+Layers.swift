import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

/// The layers' errors in the words of the one public error.
extension AssetSyncError {
    static let cancelled = AssetSyncError(
        kind: .cancelled, message: "cancelled", remedy: "partial downloads are kept in the destination, and the next pull resumes them")

    static func invalid(_ message: String) -> AssetSyncError { AssetSyncError(kind: .invalidInput, message: message) }

    init(_ kind: ErrorKind, _ message: String, remedy: String? = nil, cause: String? = nil) {
        self.init(kind: Kind(kind), message: message, remedy: remedy, cause: cause)
    }

    /// A layer's error, its message after `context` ("cannot open the destination: …").
    init(_ error: some ExplainedError, _ context: String?) {
        let message = context.map { $0 + ": " + error.message } ?? error.message
        self.init(error.kind, message, remedy: error.remedy.map(Self.words), cause: error.cause.map { "\($0)" })
    }

    /// Why a pull could not start in the destination at `root`.
    init(_ error: PullSession.StartError, root: String) {
        switch error {
        case .scan(let failure): self.init(failure, "cannot scan the destination")
        case .readState(let failure): self.init(failure, "cannot read the destination's state index")
        case .state(let failure): self.init(failure, "cannot write the destination's state index")
        case .notEnoughSpace(let shortfall):
            self.init(
                .localIO, "not enough free space in \(root): the pull needs \(ByteCount.human(shortfall.needed)), "
                    + "but \(ByteCount.human(shortfall.free)) is free; nothing was downloaded",
                remedy: "free some space and pull again")
        case .deleteInUnmanagedDirectory:
            self.init(
                .invalidInput, "removing extras changes nothing in \(root): no earlier pull completed there, so it may not be a directory assetsync manages",
                remedy: "pull once keeping extras first")
        case .tooManyDeletions(let count, let maximum):
            self.init(
                .invalidInput, "removing extras would remove \(count) files, more than the \(maximum) allowed; nothing was changed",
                remedy: "check that this is the right manifest, or allow \(count)")
        }
    }

    private static func words(_ remedy: Remedy) -> String {
        switch remedy {
        case .deleteClearsObstruction(let onlyWhenEmpty):
            onlyWhenEmpty ? "removing extras clears it when the directory holds no files" : "removing extras clears it"
        case .credentialsOutsideTheURL:
            "give credentials as a request header or in a netrc file, never in a URL"
        }
    }
}

extension AssetSyncError.Kind {
    init(_ kind: ErrorKind) {
        switch kind {
        case .invalidInput: self = .invalidInput
        case .remote: self = .remote
        case .localIO: self = .localIO
        case .lockHeld: self = .lockHeld
        case .untrusted: self = .untrusted
        }
    }
}
