import CCurl
import CCurlShim
import Foundation
import Testing
import AssetSyncModel
@testable import AssetSyncTransfer

/// Signed GETs against moto's S3 server with authentication enforced (`Fixtures/s3_auth_server.py`,
/// which proves moto refuses a wrong secret before it hands over): the server, not an assumption,
/// accepts the signature and refuses a wrong secret or a tampered signature.
@Suite(.serialized, .enabled(if: MotoAuthServer.isInstalled, "needs moto, which `make deps` installs into .build/moto"))
final class SignatureV4MotoTests {
    private let moto: MotoAuthServer
    private var store: MotoAuthServer.Store { moto.store }

    init() throws { moto = try MotoAuthServer() }

    /// A GET of the object's bytes 1000–1999 signed by `signer` (its headers changed by `tamper`): the status and the body.
    func get(_ signer: SignatureV4, tamper: (inout [(name: String, value: String)]) -> Void = { _ in }) -> (status: Int, body: [UInt8]) {
        let host = String(store.endpoint.dropFirst("http://".count))
        let range = (name: "Range", value: "bytes=1000-1999")
        var headers = signer.headers(for: .init(host: host, path: store.object, headers: [range]), at: Int64(Date().timeIntervalSince1970))
        tamper(&headers)
        let easy = CurlEasy()
        easy.set(CURLOPT_URL, store.endpoint + store.object)
        easy.setHeaders(([range] + headers).map { "\($0.name): \($0.value)" })
        final class Body { var bytes: [UInt8] = [] }
        let body = Body()
        let head = Body()
        let append: asc_data_callback = { buffer, size, count, owner in
            Unmanaged<Body>.fromOpaque(owner!).takeUnretainedValue().bytes += UnsafeRawBufferPointer(start: buffer, count: size * count)
            return size * count
        }
        easy.set(CURLOPT_WRITEDATA, pointer: Unmanaged.passUnretained(body).toOpaque())
        easy.set(CURLOPT_WRITEFUNCTION, callback: append)
        easy.set(CURLOPT_HEADERDATA, pointer: Unmanaged.passUnretained(head).toOpaque())
        easy.set(CURLOPT_HEADERFUNCTION, callback: append)
        guard curl_easy_perform(easy.handle) == CURLE_OK else { return (0, []) }
        // "HTTP/1.1 206 Partial Content": the number after the first space.
        let status = String(decoding: head.bytes, as: UTF8.self).split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, body.bytes)
    }

    var expected: [UInt8] { Array(moto.body[1000..<2000]) }

    func signer(key: String, secret: String, token: String? = nil) -> SignatureV4 {
        SignatureV4(credentials: .init(accessKeyID: key, secretAccessKey: secret, sessionToken: token), region: "us-east-1")
    }

    @Test func aSignedRangeRequestIsAnsweredWithItsBytes() {
        let answer = get(signer(key: store.key, secret: store.secret))
        #expect(answer.status == 206)
        #expect(answer.body == expected)
    }

    @Test func aWrongSecretIsRefused() {
        let answer = get(signer(key: store.key, secret: store.secret + "x"))
        #expect(answer.status == 403)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("SignatureDoesNotMatch"))
    }

    @Test func aTamperedSignatureIsRefused() {
        let answer = get(signer(key: store.key, secret: store.secret)) { headers in
            guard let index = headers.firstIndex(where: { $0.name == "Authorization" }) else { return }
            let value = headers[index].value
            headers[index].value = String(value.dropLast()) + (value.last == "0" ? "1" : "0")
        }
        #expect(answer.status == 403)
    }

    @Test func aTemporaryCredentialIsAcceptedWithItsSessionToken() {
        let answer = get(signer(key: store.temporary.key, secret: store.temporary.secret, token: store.temporary.token))
        #expect(answer.status == 206)
        #expect(answer.body == expected)
    }

    @Test func aTemporaryCredentialWithoutItsSessionTokenIsRefused() {
        let answer = get(signer(key: store.temporary.key, secret: store.temporary.secret))
        #expect(answer.status == 403)
    }
}
