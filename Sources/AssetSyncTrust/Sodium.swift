import CSodium

/// libsodium's primitives as minisign uses them: Ed25519 signatures and BLAKE2b hashes.
/// `sodium_init` runs once, on first use, whichever thread gets there first.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    private static func ready() {
        guard initialized else { fatalError("libsodium could not start") }
    }

    /// Ed25519's 64-byte detached signature of `message` by the 64-byte secret key `secret` (seed and public key).
    static func sign(_ message: UnsafeRawBufferPointer, secret: [UInt8]) -> [UInt8] {
        ready()
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        let result = signature.withUnsafeMutableBufferPointer { output in
            crypto_sign_detached(output.baseAddress!, nil, start(of: message), UInt64(message.count), secret)
        }
        guard result == 0 else { fatalError("libsodium's Ed25519 signing failed") }
        return signature
    }

    /// Whether `signature` is Ed25519's signature of `message` by the 32-byte public key `key`.
    static func verify(_ signature: [UInt8], of message: UnsafeRawBufferPointer, key: [UInt8]) -> Bool {
        ready()
        guard signature.count == Int(crypto_sign_BYTES), key.count == Int(crypto_sign_PUBLICKEYBYTES) else { return false }
        return crypto_sign_verify_detached(signature, start(of: message), UInt64(message.count), key) == 0
    }

    /// The public key that belongs to the 32-byte seed at the start of a 64-byte secret key.
    static func publicKey(ofSecret secret: [UInt8]) -> [UInt8] {
        ready()
        var key = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var expanded = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        guard crypto_sign_seed_keypair(&key, &expanded, Array(secret.prefix(Int(crypto_sign_SEEDBYTES)))) == 0 else {
            fatalError("libsodium could not derive an Ed25519 key")
        }
        sodium_memzero(&expanded, expanded.count)
        return key
    }

    /// BLAKE2b of `message`, `length` bytes long (32 or 64 here).
    static func blake2b(_ message: UnsafeRawBufferPointer, length: Int) -> [UInt8] {
        ready()
        var digest = [UInt8](repeating: 0, count: length)
        let result = digest.withUnsafeMutableBufferPointer { output in
            crypto_generichash(output.baseAddress!, length, start(of: message), UInt64(message.count), nil, 0)
        }
        guard result == 0 else { fatalError("libsodium's BLAKE2b failed") }
        return digest
    }

    /// Where `message` starts; an empty one (which may have no address) starts at a byte no one reads.
    private static func start(of message: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
        guard let base = message.baseAddress else { return UnsafePointer(emptyMessage) }
        return base.assumingMemoryBound(to: UInt8.self)
    }

    /// The address given for an empty message: libsodium reads none of its bytes.
    nonisolated(unsafe) private static let emptyMessage = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    /// The scrypt (Salsa20/8, SHA-256) key stream of `password` with `salt`, `length` bytes, as minisign
    /// derives it to encrypt a secret key; nil when libsodium refuses the limits (out of memory).
    static func scrypt(password: [UInt8], salt: [UInt8], opsLimit: UInt64, memoryLimit: Int, length: Int) -> [UInt8]? {
        ready()
        var stream = [UInt8](repeating: 0, count: length)
        // One byte more, so that even an empty password has an address.
        var padded = password + [0]
        defer { wipe(&padded) }
        let result = padded.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                crypto_pwhash_scryptsalsa208sha256(
                    &stream, UInt64(length), characters.baseAddress!, UInt64(password.count), salt, opsLimit, memoryLimit)
            }
        }
        return result == 0 ? stream : nil
    }

    /// Overwrites `bytes` with zeros in a way the compiler keeps.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
    }
}
