@preconcurrency import Glibc
import DaemonControl
import FoundationEssentials
import OrderedJSON
import SystemKit
import TagCore
import TagRouter
import TagRouterDaemon

/// `tagrouter tags learn|list|rename|forget`: naming tags by tapping them. `learn`
/// reads the next tag through the running daemon, says what it is and whether the
/// config knows it, asks a name and groups, and has the names written into the tags
/// the config uses (`TagNames`: by the daemon, or here when none runs on that config).
enum TagsCommand: Command {
    static let name = "tags"
    static let summary = "learn a tag by tapping it; list, rename or forget named tags"
    static let about = """
        learn: "place a tag" on the running daemon's reader, shows its UID, type and
        content and whether it is known, asks a name (and groups: comma-separated),
        writes it to the tags the config uses — its `tags:` block, or the file
        `tags: {file: …}` names — keeping the file's comments and order, and reloads
        the daemon. A known tag is renamed. --name and --groups skip the questions.
        rename and forget change the file the same way and reload. When the config
        is the running daemon's, the daemon writes the change with its own rights
        (a member of the service's group names tags in its folder); else this does.
        The live page offers learn on its tap cards too (`metrics.allow_naming`, docs/http.md).
        """
    static let configOption = ValueOption<String?>(
        "--config", "-c", placeholder: "FILE", whenAbsent: "the running daemon's, else the usual search", help: "the config")
    static let readerOption = ValueOption<String?>("--reader", placeholder: "NAME", whenAbsent: "its only reader", help: "the daemon's reader to read from")
    static let nameOption = ValueOption<String?>("--name", placeholder: "NAME", help: "learn: the tag's name (instead of asking)")
    static let groupsOption = ValueOption<String?>("--groups", placeholder: "A,B", help: "learn: its groups, comma-separated (instead of asking)")
    static let timeoutOption = ValueOption("--timeout", default: Duration.seconds(60), help: "learn: how long to wait for a tag")
    static let options: [any DeclaredOption] = [configOption, readerOption, nameOption, groupsOption, timeoutOption, ControlOption.option]
    static var synopses: [Synopsis] {
        let config: [Synopsis.Part] = [.optional(configOption), .optional(ControlOption.option)]
        return [
            Synopsis(parts: [.word("learn"), .optional(readerOption), .optional(nameOption), .optional(groupsOption), .optional(timeoutOption)] + config),
            Synopsis(parts: [.word("list")] + config),
            Synopsis(parts: [.word("rename"), .word("OLD"), .word("NEW")] + config),
            Synopsis(parts: [.word("forget"), .word("NAME")] + config),
        ]
    }

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let reader = try arguments.value(of: readerOption)
        let givenName = try arguments.value(of: nameOption)
        let givenGroups = try arguments.value(of: groupsOption)
        let timeout = try arguments.value(of: timeoutOption)
        let explicitConfig = try arguments.value(of: configOption)
        let control = try ControlOption.clientPath(&arguments)
        let words = arguments.positionals()
        try arguments.finish()
        guard let action = words.first else { throw .usage("tags needs learn, list, rename or forget; see `tagrouter tags --help`") }
        let (config, daemons) = try configPath(explicitConfig, control: control.path)
        let tags: TagsFile
        do throws(TagNamesProblem) { tags = try TagsFile(config: config) } catch { throw CLIError(error) }
        let names = TagNames(tags: tags, control: control.path, throughDaemon: daemons)
        switch (action, words.count) {
        case ("list", 1):
            for entry in tags.entries { print(TerminalText.escaped(line(entry))) }
            if tags.entries.isEmpty { print("no named tags in \(tags.path)") }
        case ("rename", 3):
            try names.change(.rename(words[1], to: words[2]))
        case ("forget", 2):
            try names.change(.forget(words[1]))
        case ("learn", 1):
            try learn(names, reader: reader, name: givenName, groups: givenGroups, control: control, timeout: timeout)
        default:
            throw .usage("tags \(words.joined(separator: " ")): expected `learn`, `list`, `rename OLD NEW` or `forget NAME`")
        }
    }

    /// Reads a tag through the daemon, asks, and names it.
    private static func learn(
        _ names: TagNames, reader: String?, name: String?, groups: String?, control: (path: String, explicit: Bool), timeout: Duration
    ) throws(CLIError) {
        print("Place a tag on the reader…")
        guard let reply = try DaemonTagJob.ask("read", JSONObject(["present": true]), control: (control.path, true), reader: reader, device: nil, timeout: timeout),
            let uidText = reply.value(atPath: "event.tag.uid")?.stringValue, let uid = TagUID(uidText)
        else { throw .runtime("the daemon read no tag") }
        let event = reply["event"] ?? .null
        var shown = "\(uid.hex) (\(event.value(atPath: "tag.type")?.plainText ?? "unknown type"))"
        if let uri = event["uri"]?.stringValue { shown += " \(uri)" } else if let text = event["text"]?.stringValue { shown += " \(JSONValue.string(text).serialized())" }
        let known = names.tags.name(of: uid)
        print("Tag: " + TerminalText.escaped(shown))
        print(known.map { "Known as '\(TerminalText.escaped($0))'." } ?? "Not known yet.")
        guard let name = name ?? ask(known == nil ? "Name: " : "New name (Enter keeps '\(known!)'): "), !name.isEmpty, name != known else {
            print("Nothing written.")
            return
        }
        let groupText = known != nil ? "" : groups ?? ask("Groups (comma-separated, Enter for none): ") ?? ""
        try names.change(.name(uid, as: name, groups: TagsFile.groups(groupText)))
    }

    /// One line of `tags list`: the name, its UIDs and tag ids, its groups.
    private static func line(_ entry: ConfigNode) -> String {
        var parts = [entry["name"]?.scalar ?? "?"]
        parts += TagsFile.scalars(entry["uid"]) + TagsFile.scalars(entry["tag_id"]).map { "tag_id \($0)" }
        if entry["match"] != nil { parts.append("(by content)") }
        let groups = TagsFile.scalars(entry["groups"])
        if !groups.isEmpty { parts.append("groups: " + groups.joined(separator: ", ")) }
        return parts.joined(separator: "  ")
    }

    /// Prints `prompt` and reads a line (trimmed); nil at the end of the input.
    private static func ask(_ prompt: String) -> String? {
        print(prompt, terminator: "")
        fflush(stdout)
        return readLine().map { $0.trimmingWhitespace() }
    }

    /// The config given, else the running daemon's, else the usual search; and whether it is the running daemon's.
    private static func configPath(_ explicit: String?, control: String) throws(CLIError) -> (path: String, daemons: Bool) {
        var daemons: String?
        if case let (client, reply)? = try? ControlOption.ask(control, as: "tagrouter tags", "status") {
            client.close()
            if let file = reply.value(atPath: "status.config.file")?.stringValue, file.hasPrefix("/") || FileManager.default.fileExists(atPath: file) { daemons = file }
        }
        if let explicit { return (explicit, daemons.map { Self.sameFile(explicit, $0) } ?? false) }
        if let daemons { return (daemons, true) }
        guard let path = try ConfigFile.named(nil).path else { throw .usage("no config file found; give one with --config") }
        return (path, false)
    }

    private static func sameFile(_ one: String, _ other: String) -> Bool {
        var first = stat()
        var second = stat()
        return stat(one, &first) == 0 && stat(other, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}

extension CLIError {
    /// The command line's failure for a change of the named tags that was refused.
    init(_ problem: TagNamesProblem) {
        switch problem {
        case .usage(let message): self = .usage(message)
        case .data(let message): self = .data(message)
        case .runtime(let message): self = .runtime(message)
        }
    }
}
