import FoundationEssentials
import NDEF

/// `tagrouter decode`: decode an NDEF message (hex, raw bytes or a Type 2 memory image) to JSON
enum DecodeCommand: Command {
    static let name = "decode"
    static let summary = "decode an NDEF message (hex, raw bytes or a Type 2 memory image) to JSON"
    static let about = """
        Prints the message as JSON: {"records":[…]} with the fields tnf, type/type_hex,
        id/id_hex, payload_hex and, by record kind, uri, text, lang, encoding,
        mime_type, smart_poster, wifi, bluetooth, package, json. `-` instead of HEX reads stdin.
        """
    static let fileOption = ValueOption<String?>("--file", placeholder: "PATH", help: "read the input from a file (hex text, or bytes with --raw)")
    static let rawOption = CommandOption("--raw", help: "the file or stdin holds bytes, not hex")
    static let memoryOption = CommandOption(
        "--memory", help: "the input is a Type 2 tag memory image (pages from 0);\nprints {\"cc\":…, \"tlvs\":[…], \"records\":[…]}")
    static let linesOption = CommandOption(
        "--lines", help: "one hex input per stdin line, one JSON object per output line;\na bad line gives {\"line\":N,\"error\":…} and the run goes on")
    static let lenientOption = CommandOption(
        "--lenient", help: "print the records before a defect and the defect\n({\"records\":[…], \"error\":{…}}) instead of failing")
    static let prettyOption = CommandOption("--pretty", help: "indent the JSON")
    static let options: [any DeclaredOption] = [fileOption, rawOption, memoryOption, linesOption, lenientOption, prettyOption]
    /// How the input is decoded, whichever way it comes.
    private static let decoding: [Synopsis.Part] = [.optional(memoryOption), .optional(lenientOption), .optional(prettyOption)]
    static let synopses = [
        Synopsis(parts: [.word("HEX")] + decoding),
        Synopsis(parts: [.either([.option(fileOption)], [.word("-")]), .optional(rawOption)] + decoding),
        Synopsis(parts: [.option(linesOption)] + decoding),
    ]
    static let epilogue = """
        Exit status: 0 decoded, 64 bad arguments, 65 the input is not a valid message
        (stderr: error: <kind> at byte <offset>: <explanation>).

        Example:
          tagrouter decode d1010c55016578616d706c652e636f6d
        """

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let options = DecodeOptions(memory: arguments.flag(memoryOption), lenient: arguments.flag(lenientOption),
                                    pretty: arguments.flag(prettyOption))
        let raw = arguments.flag(rawOption)
        let lines = arguments.flag(linesOption)
        let file = try arguments.value(of: fileOption)
        let positionals = arguments.positionals()
        try arguments.finish()

        if lines {
            guard file == nil, positionals.isEmpty || positionals == ["-"], !raw else {
                throw .usage("--lines reads hex lines from stdin; it takes no other input")
            }
            return try DecodeLines(options: options).run()
        }
        let bytes = try DecodeInput.read(positionals: positionals, file: file, raw: raw)
        switch options.decode(bytes) {
        case .success(let json): print(json.serialized(pretty: options.pretty))
        case .failure(let failure): throw failure.cliError
        }
    }
}
