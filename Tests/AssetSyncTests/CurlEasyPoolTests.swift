import CCurl
import Testing
@testable import AssetSyncTransfer

/// Easy handles lent attempt by attempt: a handle comes back with libcurl's defaults, no header
/// list and no error words of the download that had it, and still reports its own errors.
@Suite struct CurlEasyPoolTests {
    /// A port on loopback where nothing listens: a request there fails at once, leaving words.
    private static let refused = "http://127.0.0.1:1/a.bin"

    @Test func aHandleGivenBackIsLentAgainWithNothingOfItsLastDownload() {
        let pool = CurlEasyPool()
        let first = pool.take()
        first.set(CURLOPT_URL, Self.refused)
        first.setHeaders(["Range: bytes=5-"])
        let failed = curl_easy_perform(first.handle)
        #expect(failed == CURLE_COULDNT_CONNECT)
        #expect(first.describe(failed).contains("127.0.0.1"), "libcurl's own words, naming the host")
        pool.give(first)

        let again = pool.take()
        #expect(again === first, "the handle is reused, not made again")
        #expect(again.describe(CURLE_COULDNT_CONNECT) == String(cString: curl_easy_strerror(CURLE_COULDNT_CONNECT)), "no old words")
        #expect(curl_easy_perform(again.handle) == CURLE_URL_MALFORMAT, "the old URL is gone")
        again.set(CURLOPT_URL, Self.refused)
        let failedAgain = curl_easy_perform(again.handle)
        #expect(failedAgain == CURLE_COULDNT_CONNECT)
        #expect(again.describe(failedAgain).contains("127.0.0.1"), "the error buffer is still the handle's")
        #expect(pool.take() !== again, "a pool with no free handle makes one")
    }
}
