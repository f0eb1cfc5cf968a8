/// What a key code (linux/input-event-codes.h) means to a keyboard-wedge reader's
/// number, whatever keyboard layout the machine has: the kernel reports the key's
/// position (US names), not the character a layout gives it, so `KEY_1` is a 1
/// with or without Shift (a reader set up for AZERTY sends Shift+`KEY_1` for it).
enum KeyCode {
    /// What one key press adds to, or does with, the number being typed.
    enum Meaning: Equatable {
        /// A digit or a hex letter (lower case).
        case character(Character)
        /// Enter, keypad Enter or Tab: the number is complete.
        case end
        /// Shift, Caps Lock, Num Lock: part of typing, adds nothing.
        case modifier
        /// Any other key: what is being typed is not a card number.
        case other
    }

    static let enter: UInt16 = 28, keypadEnter: UInt16 = 96, tab: UInt16 = 15

    /// The digit row (`KEY_1` … `KEY_0`), the keypad's digits, and the letters A–F.
    private static let characters: [UInt16: Character] = [
        2: "1", 3: "2", 4: "3", 5: "4", 6: "5", 7: "6", 8: "7", 9: "8", 10: "9", 11: "0",
        79: "1", 80: "2", 81: "3", 75: "4", 76: "5", 77: "6", 71: "7", 72: "8", 73: "9", 82: "0",
        30: "a", 48: "b", 46: "c", 32: "d", 18: "e", 33: "f",
    ]
    /// Left and right Shift, Caps Lock, Num Lock.
    private static let modifiers: Set<UInt16> = [42, 54, 58, 69]

    static func meaning(of code: UInt16) -> Meaning {
        if let character = characters[code] { return .character(character) }
        if code == enter || code == keypadEnter || code == tab { return .end }
        if modifiers.contains(code) { return .modifier }
        return .other
    }
}
