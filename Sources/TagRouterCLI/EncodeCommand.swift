import FoundationEssentials
import NDEF

/// `tagrouter encode`: encode records to an NDEF message (hex) or a Type 2 memory image
enum EncodeCommand: Command {
    static let name = "encode"
    static let summary = "encode records to an NDEF message (hex) or a Type 2 memory image"
    static let about = """
        Usage: tagrouter encode RECORD… [--memory TAG [--uid HEX]] [--chunk-size N]

        RECORD is --uri URI, --text TEXT [--lang LANG], --mime TYPE (--data STRING | --data-file PATH),
        --json JSON, --external TYPE (--data STRING | --data-file PATH) or --aar PACKAGE.
        Prints the message as hex, or with --memory a whole tag memory image.
        """
    static let memoryOption = CommandOption("--memory", value: "TAG", help: "a full Type 2 memory image as hex, pages from 0, with the\nmessage in its data area: ntag213, ntag215, ntag216, ultralight", group: "Output")
    static let uidOption = CommandOption("--uid", value: "HEX", help: "the 7-byte UID of that image (default 04a1b2c3d4e5f6)", group: "Output")
    static let chunkSizeOption = CommandOption("--chunk-size", value: "N", help: "split payloads longer than N bytes into chunks", group: "Output")
    static let options: [any DeclaredOption] = EncodeRecords.options + [memoryOption, uidOption, chunkSizeOption]
    static let epilogue = """
        Example:
          tagrouter encode --uri https://example.com --text "Front door" --lang en
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let memory = try arguments.value(of: memoryOption)
        let uid = try arguments.value(of: uidOption)
        let chunkSize = try arguments.value(of: chunkSizeOption)
        let steps = try arguments.orderedValues(of: EncodeRecords.options)
        try arguments.finish()

        let records = try EncodeRecords.build(steps)
        var chunk: Int?
        if let chunkSize {
            guard let size = Int(chunkSize), size > 0 else { throw .usage("--chunk-size needs a positive number") }
            chunk = size
        }
        let message = NDEFMessage(records: records).encoded(chunkSize: chunk)
        guard let memory else {
            print(Hex.string(message))
            return
        }
        guard let tagType = Type2TagType(name: memory) else {
            throw .usage("--memory takes ntag213, ntag215, ntag216 or ultralight, not '\(memory)'")
        }
        guard let uidBytes = Hex.bytes(uid ?? "04a1b2c3d4e5f6"), uidBytes.count == 7 else {
            throw .usage("--uid needs 7 bytes of hex")
        }
        do {
            print(Hex.string(try Type2Memory.image(uid: uidBytes, tagType: tagType, message: message)))
        } catch {
            throw .data("\(error.kind.rawValue): \(error.detail)")
        }
    }
}
