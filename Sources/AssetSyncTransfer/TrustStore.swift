import AssetSyncSystem
import CCurl
import Glibc
import Synchronization

/// The CA certificates trusted when `--cacert` adds one: the system bundle
/// followed by the user's file, built once and shared by every handle.
package enum TrustStore {
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    private static let blobs = Mutex<[String: Int]>([:])

    /// A process-lifetime `curl_blob` for `CURLOPT_CAINFO_BLOB`, or nil to use libcurl's default trust.
    package static func shared(_ caFile: String?) -> UnsafeMutableRawPointer? {
        guard let caFile else { return nil }
        return blobs.withLock { cache -> UnsafeMutableRawPointer? in
            if let address = cache[caFile] { return UnsafeMutableRawPointer(bitPattern: address) }
            var bytes = (try? readAll(systemBundle)) ?? []
            bytes.append(0x0A)
            bytes += (try? readAll(caFile)) ?? []
            let storage = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
            bytes.withUnsafeBytes { storage.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            let blob = UnsafeMutablePointer<curl_blob>.allocate(capacity: 1)
            blob.initialize(to: curl_blob(data: storage, len: bytes.count, flags: 0))  // 0: CURL_BLOB_NOCOPY
            cache[caFile] = Int(bitPattern: blob)
            return UnsafeMutableRawPointer(blob)
        }
    }

    /// Reads a whole (small) file.
    static func readAll(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", path: path) }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let got = try retryingInterrupts("read", path: path) { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
            if got == 0 { return result }
            result += chunk[0..<got]
        }
    }
}
