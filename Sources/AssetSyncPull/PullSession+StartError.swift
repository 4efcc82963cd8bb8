package import AssetSyncModel
import AssetSyncSystem

extension PullSession.StartError: ExplainedError {
    package var kind: ErrorKind {
        switch self {
        case .scan, .readState, .state, .notEnoughSpace: return .localIO
        case .deleteInUnmanagedDirectory, .tooManyDeletions: return .invalidInput
        }
    }

    /// The command line words the deletion limits, which name its options.
    package var message: String {
        switch self {
        case .scan(let error): return "cannot scan the cache directory: \(error). Check its permissions, or run as its owner"
        case .readState(let error): return "cannot read the state index: \(error). Check the disk, or remove the index to check every file again"
        case .state(let error): return "cannot write the state index: \(error). Check free space and permissions"
        case .notEnoughSpace(let shortfall):
            return "not enough free space: the pull needs \(ByteCount.human(shortfall.needed)), "
                + "but \(ByteCount.human(shortfall.free)) is free. Nothing was downloaded; free some space and run again"
        case .deleteInUnmanagedDirectory:
            return "no earlier pull completed in this directory, so deleting extras there is refused"
        case .tooManyDeletions(let count, let maximum):
            return "deleting extras would remove \(count) files, more than the \(maximum) allowed; nothing was changed"
        }
    }

    package var cause: (any Error)? {
        switch self {
        case .scan(let error), .readState(let error), .state(let error): return error
        case .notEnoughSpace, .deleteInUnmanagedDirectory, .tooManyDeletions: return nil
        }
    }
}
