package import AssetSyncModel

/// Why a file outside the cache (`manifest --output`, a metrics file) was not replaced.
package enum OutputFileError: ExplainedError, CustomStringConvertible {
    case system(SystemError)
    /// Something other than a regular file is at the path (its type in words), left as it is; the
    /// words name no path: the caller's do.
    case notRegular(path: String, type: String)

    package var kind: ErrorKind {
        switch self {
        case .system(let error): error.kind
        case .notRegular: .invalidInput
        }
    }

    /// Why, without the path (for a caller that names it).
    package var reason: String {
        switch self {
        case .system(let error): error.reason
        case .notRegular(_, let type): "it is \(type), not a regular file, and is left as it is: name a regular file or a new path"
        }
    }

    package var description: String {
        switch self {
        case .system(let error): error.description
        case .notRegular: reason
        }
    }
}
