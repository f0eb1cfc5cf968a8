import Glibc
import SecureTags
import TagCore

/// The `sun:` section: the keys NTAG 424 DNA tags sign their SUN URLs with and
/// the URL parameters they mirror into. With it, every tag arrival whose URI
/// carries a SUN message is checked before routing (`tag.sun`), and a counter
/// per UID is kept in `state_dir` against replays.
enum SUNSettings {
    static let parametersSpec = OptionSpec("the names of the URL parameters the tags mirror into (their SDM settings)", [
        Option("picc_data", .oneOrMany(.string), default: "[picc_data, e]", "the encrypted PICC data (UID and counter)"),
        Option("cmac", .oneOrMany(.string), default: "[cmac, c]", "the SDMMAC"),
        Option("enc", .oneOrMany(.string), default: "[enc]", "encrypted file data; the MAC then covers the URL from it up to the MAC's value"),
        Option("uid", .oneOrMany(.string), default: "[uid]", "the UID mirrored in the clear"),
        Option("ctr", .oneOrMany(.string), default: "[ctr]", "the read counter mirrored in the clear"),
    ])

    static let diversifySpec = OptionSpec(
        "per-tag K_SDMFileRead keys (NXP AN10922): file_key_file holds the master key; a tag's key is the AES-CMAC of 01 ‖ UID ‖ aid ‖ system_identifier", [
        Option("aid", .string, default: "\"\"", "hex bytes after the UID in the diversification input (e.g. an application ID)"),
        Option("system_identifier", .string, default: "\"\"", "hex bytes after aid (e.g. a system name's ASCII: 4e585020416275 is \"NXP Abu\"); aid and this hold at most 24 bytes together"),
    ])

    static let keySpec = OptionSpec("one set of keys, as the tags' SDM settings name them", [
        Option("id", .string, required: true, "a name for the set, in logs (never the key)"),
        Option("meta_key_file", .secretFile, required: true, "file holding K_SDMMetaRead as 32 hex digits (decrypts the PICC data); readable by the daemon's user only"),
        Option("file_key_file", .secretFile, required: true, "file holding K_SDMFileRead as 32 hex digits (the MAC and file data), or with diversify its master key; readable by the daemon's user only"),
        Option("diversify", .section(diversifySpec), "derive each tag's K_SDMFileRead from file_key_file and its UID (AN10922); absent: every tag has that key"),
    ])

    static let spec = OptionSpec("NTAG 424 DNA Secure Unique NFC (docs/secure-tags.md): tags whose URL proves each tap", [
        Option("keys", .list(.section(keySpec)), required: true, "the key sets; a tag is checked with the set whose meta key decrypts its PICC data"),
        Option("parameters", .section(parametersSpec), "where the tags put their SUN data in the URL (NXP's names by default)"),
    ])

    /// The checkpoint of a validated `sun:` section; nil with the problems in `errors`.
    static func load(_ section: ConfigValue, stateDirectory: String, dryRun: Bool, _ errors: inout ConfigErrors) -> SUNCheckpoint? {
        var keys: [SUNKeys] = []
        for entry in section.list("keys") {
            let id = entry.optionalString("id") ?? ""
            // Each is checked (and its problem reported) even when another is missing.
            let meta = key(entry, "meta_key_file", &errors), file = key(entry, "file_key_file", &errors)
            let diversification = diversification(entry, &errors)
            guard let meta, let file else { continue }
            keys.append(SUNKeys(id: id, metaRead: meta, fileRead: file, diversification: diversification))
        }
        let names = section.section("parameters")
        let parameters = SUNParameters(
            piccData: names.strings("picc_data"), cmac: names.strings("cmac"), encryptedData: names.strings("enc"),
            uid: names.strings("uid"), counter: names.strings("ctr"))
        guard errors.isEmpty else { return nil }
        let counters: SUNCounterStore
        do {
            counters = try SUNCounterStore(stateDirectory: stateDirectory, checkingFolder: !dryRun)
        } catch {
            // check-config on another machine has no state folder to read: nothing to refuse there.
            if dryRun, let empty = try? SUNCounterStore(stateDirectory: "/nonexistent", checkingFolder: false) { counters = empty } else {
                errors.append(contentsOf: section.error(nil, "\(error); move it away only if you accept that every earlier SUN URL may be replayed once"))
                return nil
            }
        }
        return SUNCheckpoint(verifier: SUNVerifier(keys: keys, parameters: parameters), counters: counters)
    }

    /// The AN10922 diversification `entry` asks for: nil without `diversify:` (or with its errors in `errors`).
    private static func diversification(_ entry: ConfigValue, _ errors: inout ConfigErrors) -> SUNKeyDiversification? {
        guard entry.has("diversify") else { return nil }
        let section = entry.section("diversify")
        var parts: [[UInt8]] = []
        for key in ["aid", "system_identifier"] {
            let text = section.string(key)
            guard let bytes = text.isEmpty ? [] : TagUID(text)?.bytes else {
                errors.append(contentsOf: section.error(key, "'\(text)' is not hex bytes (two digits a byte)"))
                return nil
            }
            parts.append(bytes)
        }
        guard parts[0].count + parts[1].count <= SUNKeyDiversification.maximumExtraBytes else {
            errors.append(contentsOf: section.error(nil, "aid and system_identifier are \(parts[0].count + parts[1].count) bytes; with the 7-byte UID, AN10922 takes at most \(SUNKeyDiversification.maximumExtraBytes)"))
            return nil
        }
        return SUNKeyDiversification(applicationID: parts[0], systemIdentifier: parts[1])
    }

    /// The 16-byte key in the file `key` names: 32 hex digits, in a regular file others cannot read.
    private static func key(_ entry: ConfigValue, _ key: String, _ errors: inout ConfigErrors) -> [UInt8]? {
        guard let child = entry.child(key), let path = child.stringValue.map({ entry.context.resolve($0) }) else { return nil }
        // Not there yet (check-config elsewhere; its warning is given): the set is left out. An all-zero stand-in
        // would verify URLs made with the factory keys.
        // A file that is not a private regular file: the validator says why (`SecretFile`).
        guard SecretFile(path: path).problem == nil else { return nil }
        guard let text = child.fileContents, text.utf8.count == 32, let bytes = TagUID(text)?.bytes, bytes.count == 16 else {
            errors.append(contentsOf: entry.error(key, "\(path) must hold an AES-128 key as 32 hex digits"))
            return nil
        }
        return bytes
    }
}
