package import AssetSyncModel
import AssetSyncSystem
import Glibc

/// Resolves the cache directory once, at the start of a run: DEST may itself
/// be a symlink (a cache on another volume), but nothing inside it is followed.
package enum CacheDirectory {
    package struct Problem: ExplainedError, Equatable {
        package var message: String
        /// Whether the path given is wrong (`invalidInput`), or the system failed to look at it (`localIO`).
        package var kind: ErrorKind
    }

    /// The absolute, symlink-free path of `dest`; a missing directory resolves
    /// through its parent, since a pull creates it.
    package static func resolve(_ dest: String) -> Result<String, Problem> {
        if let resolved = realpath(dest, nil) {
            defer { free(resolved) }
            let path = String(cString: resolved)
            var status = stat()
            guard stat(path, &status) == 0 else {
                return .failure(Problem(message: SystemError("stat").reason, kind: .localIO))
            }
            guard status.st_mode & S_IFMT == S_IFDIR else {
                return .failure(Problem(message: "not a directory", kind: .invalidInput))
            }
            return .success(path)
        }
        guard errno == ENOENT else {
            return .failure(Problem(message: SystemError("realpath").reason, kind: .localIO))
        }
        let trimmed = dest.hasSuffix("/") && dest.count > 1 ? String(dest.dropLast()) : dest
        let parent = PathName.directory(of: trimmed)
        let name = String(PathName.split(trimmed).name)
        guard let resolvedParent = realpath(parent, nil) else {
            return .failure(Problem(message: "its parent directory does not exist", kind: .invalidInput))
        }
        defer { free(resolvedParent) }
        let base = String(cString: resolvedParent)
        return .success(base == "/" ? "/" + name : base + "/" + name)
    }
}
