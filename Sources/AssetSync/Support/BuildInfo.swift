import CCurl
import CLibXML2
import CZlib

/// The version of assetsync and of the C libraries it was linked against.
public enum BuildInfo {
    public static let version = "0.1.0"

    public static var libraries: String {
        let curl = curl_version_info(CURLVERSION_ELEVENTH).pointee.version.map { String(cString: $0) } ?? "?"
        return "libcurl \(curl), libxml2 \(LIBXML_DOTTED_VERSION), zlib \(String(cString: zlibVersion()))"
    }
}
