import AssetSyncManifestIO
import Glibc

/// One file in /dev/shm, rewritten with each input: the reader reads a descriptor, as it reads standard input.
let inputFile: Int32 = {
    var template = Array("/dev/shm/assetsync-fuzz-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    precondition(fd >= 0, "mkstemp in /dev/shm failed")
    unlink(String(cString: template))
    return fd
}()

/// libFuzzer's entry: any bytes as a manifest (XML or JSON, either gzipped). A thrown ManifestError is
/// a pass; a crash, a trap, a leak or memory past libFuzzer's -rss_limit_mb is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ftruncate(inputFile, 0)
    if size > 0, pwrite(inputFile, data, size, 0) != size { return 0 }
    lseek(inputFile, 0, SEEK_SET)
    _ = try? ManifestReader.read(descriptor: inputFile, name: "fuzz", sizeLimit: 1 << 20)
    return 0
}
