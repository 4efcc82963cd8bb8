import Glibc

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
