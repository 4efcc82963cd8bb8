import Glibc

extension PathName {
    /// Whether `path` is a directory (a link to one followed).
    package static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}

extension PathName {
    /// Whether this process may read the file at `path`.
    package static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// `path` made absolute against the working directory ("." is the working directory itself).
    package static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        let base = String(cString: cwd)
        return path == "." ? base : (base == "/" ? "" : base) + "/" + path
    }
}
