import AssetSyncManifestIO
import AssetSyncModel
import CCurl
import CIsal
import CLibCrypto
import CSodium
import CZlib

extension BuildInfo {
    /// The versions of the C libraries assetsync was linked against.
    package static var libraries: String {
        let curl = curl_version_info(CURLVERSION_ELEVENTH).pointee.version.map { String(cString: $0) } ?? "?"
        let isal = "\(ISAL_MAJOR_VERSION).\(ISAL_MINOR_VERSION).\(ISAL_PATCH_VERSION)"
        return "libcurl \(curl), libxml2 \(ManifestReader.libxml2Version), zlib \(String(cString: zlibVersion())), isa-l \(isal), \(String(cString: OpenSSL_version(OPENSSL_VERSION))), libsodium \(String(cString: sodium_version_string()))"
    }
}
