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

extension AtomicFile {
    /// The bytes of the regular file at `path`, at most `limit`, read without following a link at its
    /// name; nil when it is missing, too large or not a regular file.
    package static func read(at path: String, limit: Int) throws(SystemError) -> [UInt8]? {
        let directory = open(PathName.directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw SystemError("open", path: PathName.directory(of: path)) }
        defer { close(directory) }
        return try read(String(PathName.split(path).name), in: directory, limit: limit, display: path)
    }
}
