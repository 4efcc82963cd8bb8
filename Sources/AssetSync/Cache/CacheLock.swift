import Glibc

/// `DEST/.assetsync/lock`, held with `flock` for a whole pull: a second run
/// waits up to `--lock-wait`, then exits 4 naming the holder. The kernel frees
/// the lock when its holder exits, however it exits (kill -9 included).
public final class CacheLock {
    static let fileName = "lock"

    private let fd: Int32

    /// Who holds the lock: what the holder wrote into the lock file.
    public struct Held: Error, Equatable {
        public var holder: String
        public var path: String
    }

    /// Takes the lock, waiting up to `wait` seconds (0: not at all) while `shouldStop` stays false.
    public init(root: CacheRoot, wait: Double, shouldStop: () -> Bool = { false }) throws(LockError) {
        let path = root.path + "/.assetsync/" + Self.fileName
        let fd = openat(root.metadataFD, Self.fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(SystemError("open", path: path)) }
        let deadline = MonotonicClock.now() + wait
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let error = SystemError("flock", path: path)
                close(fd)
                throw .system(error)
            }
            if MonotonicClock.now() >= deadline || shouldStop() {
                let holder = Self.holder(fd)
                close(fd)
                throw .held(Held(holder: holder, path: path))
            }
            usleep(50_000)
        }
        self.fd = fd
        let text = "pid \(getpid())\nhost \(Self.hostName())\nstarted \(Self.timestamp())\n"
        ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    deinit { close(fd) }

    /// "pid 123 on host build-7, started 2026-11-30T06:00:00Z", from the holder's lock file.
    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return "an unknown process (it has not written its details yet)" }
        var fields: [String: String] = [:]
        for line in String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return "pid \(fields["pid"] ?? "?") on host \(fields["host"] ?? "?"), started \(fields["started"] ?? "?")"
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "?" }
        return String(cString: buffer)
    }

    /// Now, in UTC, as ISO 8601.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(cString: buffer)
    }
}

public enum LockError: Error, Equatable {
    case held(CacheLock.Held)
    case system(SystemError)
}
