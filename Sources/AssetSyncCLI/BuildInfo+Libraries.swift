import AssetSyncModel
import CCurl
import CLibXML2
import CZlib

extension BuildInfo {
    /// The versions of the C libraries assetsync was linked against.
    static var libraries: String {
        let curl = curl_version_info(CURLVERSION_ELEVENTH).pointee.version.map { String(cString: $0) } ?? "?"
        return "libcurl \(curl), libxml2 \(LIBXML_DOTTED_VERSION), zlib \(String(cString: zlibVersion()))"
    }
}
