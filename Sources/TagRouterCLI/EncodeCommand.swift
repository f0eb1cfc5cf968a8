import FoundationEssentials
import NDEF
import TagCore

/// `tagrouter encode`: encode records to an NDEF message (hex) or a Type 2 memory image
enum EncodeCommand: Command {
    static let name = "encode"
    static let summary = "encode records to an NDEF message (hex) or a Type 2 memory image"
    static let about = """
        RECORD is one of:
        \(EncodeRecords.grammar)

        Prints the message as hex, or with --memory a whole tag memory image.
        """
    static let memoryOption = ValueOption<Type2TagType?>(
        "--memory", help: "a full Type 2 memory image of this tag as hex, pages from 0,\nwith the message in its data area", group: "Output")
    static let uidOption = ValueOption(
        "--uid", placeholder: "HEX", default: TagUID(bytes: [0x04, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6]), help: "the 7-byte UID of that image", group: "Output")
    static let chunkSizeOption = ValueOption<Int?>("--chunk-size", help: "split payloads longer than N bytes into chunks", group: "Output")
    static let options: [any DeclaredOption] = EncodeRecords.options + [memoryOption, uidOption, chunkSizeOption]
    static let synopses = [
        Synopsis(.summarized("RECORD…", EncodeRecords.declarations), .optional(.option(memoryOption), .optional(uidOption)), .optional(chunkSizeOption))
    ]
    static let epilogue = """
        Example:
          tagrouter encode --uri https://example.com --text "Front door" --lang en
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let memory = try arguments.value(of: memoryOption)
        let uid = try arguments.value(of: uidOption)
        let chunkSize = try arguments.value(of: chunkSizeOption)
        let steps = try arguments.orderedValues(of: EncodeRecords.declarations)
        try arguments.finish()

        let records = try EncodeRecords.build(steps)
        if let chunkSize, chunkSize <= 0 { throw .usage("--chunk-size needs a positive number, not \(chunkSize)") }
        let message = NDEFMessage(records: records).encoded(chunkSize: chunkSize)
        guard let memory else {
            print(Hex.string(message))
            return
        }
        guard uid.bytes.count == 7 else { throw .usage("--uid needs 7 bytes, not \(uid.bytes.count) (\(uid.hex))") }
        do {
            print(Hex.string(try Type2Memory.image(uid: uid.bytes, tagType: memory, message: message)))
        } catch {
            throw .data("\(error.kind.rawValue): \(error.detail)")
        }
    }
}
