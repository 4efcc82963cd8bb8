import CLibCrypto

/// HMAC-SHA256 (RFC 2104) by libcrypto: the keyed hash that AWS Signature Version 4 chains from
/// the secret key to each request's signature.
package enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    package static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                output.withUnsafeMutableBufferPointer { output in
                    HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress?.assumingMemoryBound(to: UInt8.self),
                         message.count, output.baseAddress, &length)
                }
            }
        }
        guard done != nil, length == 32 else { fatalError("libcrypto's HMAC-SHA256 failed (out of memory)") }
        return output
    }

    /// The MAC of `message`'s UTF-8 bytes under `key`.
    package static func mac(key: [UInt8], _ message: String) -> [UInt8] { mac(key: key, message: Array(message.utf8)) }
}
