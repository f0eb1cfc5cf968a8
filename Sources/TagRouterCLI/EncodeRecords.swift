import FoundationEssentials
import NDEF
import OrderedJSON

/// Turns `encode`'s record options, in command-line order, into records:
/// `--lang` qualifies the `--text` before it, `--data`/`--data-file` the `--mime`
/// or `--external` before it.
enum EncodeRecords {
    /// Every option that builds records (`encode`, `write`), taken in command-line order.
    static let options = [
        CommandOption("--uri", value: "URI", help: "a URI record (shortest identifier code)"),
        CommandOption("--text", value: "TEXT", help: "a Text record in UTF-8"),
        CommandOption("--lang", value: "LANG", help: "the language of the --text before it (default en)"),
        CommandOption("--mime", value: "TYPE", help: "a media-type record, its payload the --data or --data-file after it"),
        CommandOption("--external", value: "TYPE", help: "an external-type record (domain:name), its payload the --data or\n--data-file after it"),
        CommandOption("--data", value: "STRING", help: "the payload of the --mime or --external before it"),
        CommandOption("--data-file", value: "PATH", help: "the payload of the --mime or --external before it, from a file"),
        CommandOption("--json", value: "JSON", help: "an application/json record (checked to be JSON)"),
        CommandOption("--aar", value: "PACKAGE", help: "an Android Application Record"),
    ].map { $0.listed(under: group) }

    /// The heading `--help` lists the record options under.
    static let group = "Records (repeatable; the message holds them in command-line order)"

    /// The names of `options`, for `Arguments.orderedOptions`.
    static let optionNames = Set(options.flatMap(\.names))

    static func build(_ steps: [(name: String, value: String)]) throws(CLIError) -> [NDEFRecord] {
        var records: [NDEFRecord] = []
        var index = 0
        func next(_ names: Set<String>) -> (name: String, value: String)? {
            guard index + 1 < steps.count, names.contains(steps[index + 1].name) else { return nil }
            index += 1
            return steps[index]
        }
        while index < steps.count {
            let (name, value) = steps[index]
            switch name {
            case "--uri":
                records.append(.uri(value))
            case "--text":
                records.append(.text(value, locale: next(["--lang"])?.value ?? "en"))
            case "--json":
                guard (try? JSONValue.parse(value)) != nil else { throw .usage("--json needs a JSON document, got '\(value)'") }
                records.append(.json(value))
            case "--aar":
                records.append(.androidApp(value))
            case "--mime", "--external":
                guard let data = next(["--data", "--data-file"]) else { throw .usage("\(name) \(value) needs --data or --data-file after it") }
                let payload = try payload(data)
                records.append(name == "--mime" ? .mime(value, payload) : .external(value, payload))
            default:
                throw .usage("\(name) must follow \(name == "--lang" ? "--text" : "--mime or --external")")
            }
            index += 1
        }
        guard !records.isEmpty else { throw .usage("give at least one record (--uri, --text, --mime, --json, --external, --aar)") }
        return records
    }

    private static func payload(_ data: (name: String, value: String)) throws(CLIError) -> [UInt8] {
        guard data.name == "--data-file" else { return Array(data.value.utf8) }
        guard let contents = FileManager.default.contents(atPath: data.value) else {
            throw .runtime("cannot read '\(data.value)'")
        }
        return [UInt8](contents)
    }
}
