/// CRC-32 values as the manifest writes them.
public enum CRC32Text {
    public static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
