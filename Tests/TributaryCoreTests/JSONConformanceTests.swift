import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

// Pass/fail conformance suite for the strict RFC 8259 parser, in the style of
// nst/JSONTestSuite: `y_` cases must be accepted, `n_` cases must be rejected.
// Beyond the table there are focused tests for decoded values, numbers, nesting depth,
// error positions and writer round-trips.

private typealias ConformanceCase = (name: String, input: [UInt8], accept: Bool)

private func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }

private func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return "0x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0xF)])
}

/// Printable form of a test input for failure messages (non-printable bytes as \xNN).
private func describe(_ bytes: [UInt8]) -> String {
    var out = ""
    for b in bytes.prefix(80) {
        if b >= 0x20 && b < 0x7F && b != 0x5C {
            out.append(Character(Unicode.Scalar(b)))
        } else if b == 0x5C {
            out += "\\\\"
        } else {
            out += "\\x" + String(hex(b).dropFirst(2))
        }
    }
    if bytes.count > 80 { out += "... (\(bytes.count) bytes)" }
    return out
}

private struct ConformanceTable {
    var cases: [ConformanceCase] = []

    mutating func y(_ name: String, _ text: String) {
        cases.append((name: "y_" + name, input: utf8(text), accept: true))
    }

    mutating func n(_ name: String, _ text: String) {
        cases.append((name: "n_" + name, input: utf8(text), accept: false))
    }

    mutating func yBytes(_ name: String, _ bytes: [UInt8]) {
        cases.append((name: "y_" + name, input: bytes, accept: true))
    }

    mutating func nBytes(_ name: String, _ bytes: [UInt8]) {
        cases.append((name: "n_" + name, input: bytes, accept: false))
    }

    mutating func expect(_ accept: Bool, _ name: String, _ bytes: [UInt8]) {
        if accept { yBytes(name, bytes) } else { nBytes(name, bytes) }
    }
}

/// `"` + bytes + `"`
private func quoted(_ bytes: [UInt8]) -> [UInt8] { [0x22] + bytes + [0x22] }

// MARK: - Case table

private func makeConformanceCases() -> [ConformanceCase] {
    var t = ConformanceTable()
    addStructureAcceptCases(&t)
    addStructureRejectCases(&t)
    addLiteralCases(&t)
    addNumberCases(&t)
    addStringAcceptCases(&t)
    addStringRejectCases(&t)
    addUTF8Cases(&t)
    addGeneratedCases(&t)
    return t.cases
}

private func addStructureAcceptCases(_ t: inout ConformanceTable) {
    t.y("array_empty", "[]")
    t.y("array_empty_with_space", "[ ]")
    t.y("array_single_number", "[1]")
    t.y("array_heterogeneous", #"[null, 1, "1", {}]"#)
    t.y("array_nested_empty", "[[],[[]],[[[]]]]")
    t.y("array_false", "[false]")
    t.y("array_null", "[null]")
    t.y("array_ending_with_newline", "[\"a\"]\n")
    t.y("array_whitespace_everywhere", " [ 1 ,\t2 ,\n3\r] ")
    t.y("array_of_objects", #"[{"a":1},{"b":[2]},{}]"#)
    t.y("array_with_several_null", "[1,null,null,null,2]")
    t.y("object_empty", "{}")
    t.y("object_empty_with_whitespace", "{ \n\t\r}")
    t.y("object_basic", #"{"asd":"sdf"}"#)
    t.y("object_duplicated_key", #"{"a":"b","a":"c"}"#)
    t.y("object_duplicated_key_and_value", #"{"a":"b","a":"b"}"#)
    t.y("object_empty_key", #"{"":0}"#)
    t.y("object_escaped_null_in_key", #"{"foo\u0000bar": 42}"#)
    t.y("object_extreme_numbers", #"{ "min": -1.0e+28, "max": 1.0e+28 }"#)
    t.y("object_simple", #"{"a":[]}"#)
    t.y("object_with_newlines", "{\n\"a\": \"b\"\n}")
    t.y("object_nested", #"{"a":{"b":{"c":{}}}}"#)
    t.y("object_many_keys", #"{"a":1,"b":2,"c":3,"d":[4,5],"e":{"f":null}}"#)
    t.y("object_whitespace_around_colon_and_comma", "{ \"a\" \t:\n 1 \r,\r\n \"b\" : 2 }")
    t.y("object_key_with_all_escapes", #"{"\"\\\/\b\f\n\r\t\u0041":1}"#)
    t.y("object_string_unicode", #"{"title":"\u041f\u043e\u043b\u0442\u043e\u0440\u0430 \u0417\u0435\u043c\u043b\u0435\u043a\u043e\u043f\u0430" }"#)
    t.y("object_key_with_brackets", #"{"[{:,}]":"]}"}"#)
    t.y("structure_lonely_true", "true")
    t.y("structure_lonely_false", "false")
    t.y("structure_lonely_null", "null")
    t.y("structure_lonely_int", "42")
    t.y("structure_lonely_zero", "0")
    t.y("structure_lonely_negative_real", "-0.1")
    t.y("structure_lonely_string", #""asd""#)
    t.y("structure_lonely_empty_string", #""""#)
    t.y("structure_whitespace_around_scalar", " \t\r\n 2 \n")
    t.y("structure_crlf_around_array", "\r\n[]\r\n")
    t.y("structure_whitespace_array", " [] ")
    t.y("structure_whitespace_object", "\t{}\t")
    t.y("structure_true_in_array", "[true]")
    t.y("structure_string_with_brackets", #"["[{]}", "{\"a\":[}"]"#)
    t.y("structure_long_array_of_nulls", "[" + Array(repeating: "null", count: 1000).joined(separator: ",") + "]")
    t.y("structure_document_from_brief", #"{"a":[1,"b",true,null,{"c":-1.5e3}]}"#)
}

private func addStructureRejectCases(_ t: inout ConformanceTable) {
    // Arrays
    t.n("array_1_true_without_comma", "[1 true]")
    t.n("array_colon_instead_of_comma", #"["": 1]"#)
    t.n("array_comma_after_close", #"[""],"#)
    t.n("array_comma_and_number", "[,1]")
    t.n("array_double_comma", "[1,,2]")
    t.n("array_double_extra_comma", #"["x",,]"#)
    t.n("array_extra_close", #"["x"]]"#)
    t.n("array_extra_comma", #"["",]"#)
    t.n("array_trailing_comma_number", "[1,]")
    t.n("array_number_and_several_commas", "[1,,]")
    t.n("array_incomplete", #"["x""#)
    t.n("array_incomplete_invalid_value", "[x")
    t.n("array_inner_array_no_comma", "[3[4]]")
    t.n("array_items_separated_by_semicolon", "[1:2]")
    t.n("array_just_comma", "[,]")
    t.n("array_just_two_commas", "[,,]")
    t.n("array_missing_value", #"[   , ""]"#)
    t.n("array_newlines_unclosed", "[\"a\",\n4\n,1,")
    t.n("array_star_inside", "[*]")
    t.n("array_unclosed", #"["""#)
    t.n("array_unclosed_trailing_comma", "[1,")
    t.n("array_unclosed_with_new_lines", "[1,\n1\n,1")
    t.n("array_unclosed_with_object_inside", "[{}")
    t.n("array_missing_comma_between_strings", #"["a" "b"]"#)
    t.n("array_missing_comma_between_numbers", "[1 2]")
    t.n("array_closed_by_brace", "[}")
    t.n("array_mismatch_nested", "[{]}")
    t.n("array_closed_by_brace_after_value", "[1}")
    t.n("array_closed_by_brace_after_string", #"["a"}"#)
    t.n("array_closed_by_brace_after_two_values", "[1,2}")
    t.n("array_inner_object_closed_by_bracket", #"[{"a":1]]"#)
    // Objects
    t.n("object_closed_by_bracket", "{]")
    t.n("object_closed_by_bracket_after_value", #"{"a":1]"#)
    t.n("object_closed_by_bracket_after_string_value", #"{"":""]"#)
    t.n("object_inner_array_closed_by_brace", #"{"a":[1}}"#)
    t.n("object_bad_value", #"["x", truth]"#)
    t.n("object_comma_instead_of_colon", #"{"x", null}"#)
    t.n("object_double_colon", #"{"x"::"b"}"#)
    t.n("object_emoji_key", "{🇨🇭}")
    t.n("object_garbage_at_end", #"{"a":"a" 123}"#)
    t.n("object_key_with_single_quotes", "{key: 'value'}")
    t.n("object_missing_colon", #"{"a" b}"#)
    t.n("object_missing_key", #"{:"b"}"#)
    t.n("object_missing_colon_between_strings", #"{"a" "b"}"#)
    t.n("object_missing_value", #"{"a":"#)
    t.n("object_missing_value_before_close", #"{"a":}"#)
    t.n("object_no_colon", #"{"a""#)
    t.n("object_equals_instead_of_colon", #"{"a"=1}"#)
    t.n("object_non_string_key_number", "{1:1}")
    t.n("object_non_string_key_huge_number", "{9999E9999:1}")
    t.n("object_non_string_key_null", "{null:null,null:null}")
    t.n("object_non_string_key_true", "{true:1}")
    t.n("object_non_string_key_array", "{[]:1}")
    t.n("object_non_string_key_object", "{{}:1}")
    t.n("object_several_trailing_commas", #"{"id":0,,,,,}"#)
    t.n("object_single_quoted_key", "{'a':0}")
    t.n("object_single_quoted_value", #"{"a":'b'}"#)
    t.n("object_trailing_comma", #"{"a":1,}"#)
    t.n("object_trailing_comma_after_string", #"{"id":"x",}"#)
    t.n("object_two_commas_in_a_row", #"{"a":"b",,"c":"d"}"#)
    t.n("object_leading_comma", #"{,"a":1}"#)
    t.n("object_lone_comma", "{,}")
    t.n("object_unquoted_key", #"{a: "b"}"#)
    t.n("object_unterminated_value", #"{"a":"a"#)
    t.n("object_with_single_string", #"{ "foo" : "bar", "a" }"#)
    t.n("object_with_trailing_garbage", ##"{"a":"b"}#"##)
    t.n("object_trailing_comment_block", #"{"a":"b"}/**/"#)
    t.n("object_trailing_comment_open", #"{"a":"b"}/**//"#)
    t.n("object_trailing_comment_line", #"{"a":"b"}//"#)
    t.n("object_comment_inside", #"{"a":/*comment*/"b"}"#)
    t.n("object_unclosed", #"{"asd":"asd""#)
    t.n("object_value_missing_comma", #"{"a":1 "b":2}"#)
    // Structure / top level
    t.n("structure_empty_input", "")
    t.n("structure_whitespace_only_space", " ")
    t.n("structure_whitespace_only_mixed", " \t\r\n ")
    t.n("structure_angle_bracket", "<.>")
    t.n("structure_angle_bracket_null", "[<null>]")
    t.n("structure_array_trailing_garbage", "[1] x")
    t.n("structure_array_trailing_garbage_no_space", "[1]x")
    t.n("structure_array_with_extra_close", "[1]]")
    t.n("structure_array_with_unclosed_string", #"["asd]"#)
    t.n("structure_ascii_unicode_identifier", "aå")
    t.n("structure_close_unopened_array", "1]")
    t.n("structure_comma_instead_of_closing_brace", #"{"x": true,"#)
    t.n("structure_double_array", "[][]")
    t.n("structure_end_array", "]")
    t.n("structure_end_object", "}")
    t.n("structure_lone_open_bracket", "[")
    t.n("structure_lone_open_brace", "{")
    t.n("structure_lone_comma", ",")
    t.n("structure_lone_colon", ":")
    t.nBytes("structure_null_byte_outside_string", [0x5B, 0x00, 0x5D])
    t.nBytes("structure_trailing_null_byte", utf8("[1]") + [0x00])
    t.nBytes("structure_lone_null_byte", [0x00])
    t.n("structure_number_with_trailing_garbage", "2@")
    t.n("structure_object_followed_by_closing_object", "{}}")
    t.n("structure_object_unclosed_no_value", #"{"":"#)
    t.n("structure_object_with_trailing_garbage_string", #"{"a": true} "x""#)
    t.n("structure_open_array_apostrophe", "['")
    t.n("structure_open_array_comma", "[,")
    t.n("structure_open_array_open_object", "[{")
    t.n("structure_open_array_open_string", #"["a"#)
    t.n("structure_open_object_comma", "{,")
    t.n("structure_open_object_open_array", "{[")
    t.n("structure_open_object_open_string", #"{"a"#)
    t.n("structure_open_object_string_with_apostrophes", "{'a'")
    t.n("structure_single_star", "*")
    t.n("structure_trailing_hash", ##"{"a":"b"}#{}"##)
    t.n("structure_uescaped_LF_before_string", #"[\u000A""]"#)
    t.n("structure_uescaped_space_before_string", #"[\u0020"asd"]"#)
    t.n("structure_unclosed_array", "[1")
    t.n("structure_unclosed_array_partial_null", "[ false, nul")
    t.n("structure_unclosed_array_unfinished_false", "[ true, fals")
    t.n("structure_unclosed_array_unfinished_true", "[ false, tru")
    t.n("structure_unicode_identifier", "å")
    t.n("structure_two_top_level_numbers", "1 2")
    t.n("structure_two_top_level_strings", #""a" "b""#)
    t.n("structure_two_top_level_objects", "{} {}")
    t.n("structure_two_top_level_arrays_with_comma", "[],[]")
    t.n("structure_leading_garbage", "x[1]")
    t.n("structure_trailing_semicolon", "[1];")
    t.n("structure_bare_words_in_array", "[a, b]")
    t.n("structure_parenthesis", "(1)")
    t.n("structure_comment_line_before", "// c\n[1]")
    t.n("structure_comment_line_after", "[1] // c")
    t.n("structure_comment_block_before", "/* c */ [1]")
    t.n("structure_comment_block_inside_array", "[1, /* c */ 2]")
    t.n("structure_comment_hash", "# c\n[1]")
    // Whitespace that RFC 8259 does not allow outside strings
    t.n("structure_whitespace_formfeed", "[\u{0C}]")
    t.n("structure_whitespace_formfeed_before_scalar", "\u{0C}1")
    t.n("structure_whitespace_vertical_tab_before", "\u{0B}[]")
    t.n("structure_whitespace_vertical_tab_inside", "[1,\u{0B}2]")
    t.n("structure_whitespace_nbsp_before", "\u{A0}[]")
    t.n("structure_whitespace_nbsp_inside", "[\u{A0}1]")
    t.n("structure_whitespace_nbsp_after", "[]\u{A0}")
    t.n("structure_whitespace_U+2060_word_joiner", "[\u{2060}]")
    t.n("structure_whitespace_U+3000_ideographic_space", "[\u{3000}1]")
    t.n("structure_whitespace_U+2028_line_separator", "[1\u{2028}]")
    t.n("structure_whitespace_U+FEFF_inside", "[\u{FEFF}1]")
}

private func addLiteralCases(_ t: inout ConformanceTable) {
    t.y("literal_all_in_array", "[true,false,null]")
    t.y("literal_in_object", #"{"t":true,"f":false,"n":null}"#)
    t.n("literal_True", "True")
    t.n("literal_True_in_array", "[True]")
    t.n("literal_False", "False")
    t.n("literal_FALSE", "FALSE")
    t.n("literal_Null", "Null")
    t.n("literal_NULL", "NULL")
    t.n("literal_tRue", "tRue")
    t.n("literal_nulL_in_array", "[nulL]")
    t.n("literal_nul", "nul")
    t.n("literal_nulll", "nulll")
    t.n("literal_truex", "truex")
    t.n("literal_tru", "tru")
    t.n("literal_fals", "fals")
    t.n("literal_falsee", "falsee")
    t.n("literal_t", "t")
    t.n("literal_f", "f")
    t.n("literal_n", "n")
    t.n("literal_truefalse", "[truefalse]")
    t.n("literal_null1", "[null1]")
    t.n("literal_true_null_adjacent", "truenull")
    t.n("literal_undefined", "undefined")
    t.n("literal_None", "None")
    t.n("literal_nil", "nil")
    t.n("literal_nan_lowercase", "nan")
}

private func addNumberCases(_ t: inout ConformanceTable) {
    t.y("number_123e65", "[123e65]")
    t.y("number_0e+1", "[0e+1]")
    t.y("number_0e1", "[0e1]")
    t.y("number_after_space", "[ 4]")
    t.y("number_double_close_to_zero", "[-0.000000000000000000000000000000000000000000000000000000000000000000000000000001]")
    t.y("number_int_with_exp", "[20e1]")
    t.y("number_minus_zero_in_array", "[-0]")
    t.y("number_minus_zero", "-0")
    t.y("number_negative_int", "[-123]")
    t.y("number_negative_one", "[-1]")
    t.y("number_real_capital_e", "[1E22]")
    t.y("number_real_capital_e_neg_exp", "[1E-2]")
    t.y("number_real_capital_e_pos_exp", "1E+2")
    t.y("number_real_exponent", "[123e45]")
    t.y("number_real_fraction_exponent", "[123.456e78]")
    t.y("number_real_neg_exp", "[1e-2]")
    t.y("number_real_pos_exponent", "[1e+2]")
    t.y("number_simple_int", "[123]")
    t.y("number_simple_real", "[123.456789]")
    t.y("number_zero", "0")
    t.y("number_zero_exp_zero", "0e0")
    t.y("number_zero_point_zero", "0.0")
    t.y("number_minus_zero_point_zero", "-0.0")
    t.y("number_zero_point_zeros", "0.000")
    t.y("number_minus_zero_exp_minus_zero", "-0e-0")
    t.y("number_exp_leading_zeros", "1e007")
    t.y("number_exp_double_zero", "1e00")
    t.y("number_underflow", "1e-400")
    t.y("number_overflow_to_infinity", "1e400")
    t.y("number_negative_overflow", "-1e400")
    t.y("number_int64_min", "-9223372036854775808")
    t.y("number_int64_max", "9223372036854775807")
    t.y("number_int64_max_plus_one", "9223372036854775808")
    t.y("number_int64_min_minus_one", "-9223372036854775809")
    t.y("number_huge_100_digit_integer", "1" + String(repeating: "234567890", count: 11))
    t.y("number_1.0E+2", "1.0E+2")
    t.y("number_half", "0.5")
    t.y("number_1E0", "1E0")
    t.y("number_min_subnormal", "5e-324")
    t.y("number_max_double", "1.7976931348623157e308")
    t.y("number_mixed_in_array", "[1,-2,3.5,-4.5e-6]")
    t.y("number_zeros_in_array", "[0,-0,0.0]")
    t.y("number_ten", "10")
    t.y("number_fraction_with_zero_digits", "100.001")
    t.y("number_negative_exp_form", "-1.5e3")
    t.y("number_followed_by_whitespace", "12 \n")

    t.n("number_++", "[++1234]")
    t.n("number_plus_one_in_array", "[+1]")
    t.n("number_plus_one", "+1")
    t.n("number_plus_Inf", "[+Inf]")
    t.n("number_-01_in_array", "[-01]")
    t.n("number_-01", "-01")
    t.n("number_01", "01")
    t.n("number_00", "00")
    t.n("number_012", "[012]")
    t.n("number_-012", "[-012]")
    t.n("number_00.1", "[00.1]")
    t.n("number_-00", "[-00]")
    t.n("number_-1.0.", "[-1.0.]")
    t.n("number_-2.", "[-2.]")
    t.n("number_-NaN", "[-NaN]")
    t.n("number_.-1", "[.-1]")
    t.n("number_.2e-3", "[.2e-3]")
    t.n("number_.5", ".5")
    t.n("number_5.", "5.")
    t.n("number_1._in_array", "[1.]")
    t.n("number_0._in_array", "[0.]")
    t.n("number_dot_alone", "[.]")
    t.n("number_0.1.2", "[0.1.2]")
    t.n("number_1.2.3", "[1.2.3]")
    t.n("number_0.3e+", "[0.3e+]")
    t.n("number_0.3e", "[0.3e]")
    t.n("number_0.e1", "[0.e1]")
    t.n("number_0E+", "[0E+]")
    t.n("number_0E", "[0E]")
    t.n("number_0e+", "[0e+]")
    t.n("number_0e", "[0e]")
    t.n("number_1.0e+", "[1.0e+]")
    t.n("number_1.0e-", "[1.0e-]")
    t.n("number_1.0e", "[1.0e]")
    t.n("number_1.5E", "[1.5E]")
    t.n("number_1e", "1e")
    t.n("number_1e+", "1e+")
    t.n("number_1e-", "1e-")
    t.n("number_1_000_space", "[1 000.0]")
    t.n("number_1eE2", "[1eE2]")
    t.n("number_1e+-3", "[1e+-3]")
    t.n("number_1e2e3", "[1e2e3]")
    t.n("number_1e1.5", "[1e1.5]")
    t.n("number_2.e+3", "[2.e+3]")
    t.n("number_2.e-3", "[2.e-3]")
    t.n("number_2.e3", "[2.e3]")
    t.n("number_1.e3", "1.e3")
    t.n("number_9.e+", "[9.e+]")
    t.n("number_Inf", "[Inf]")
    t.n("number_Infinity", "Infinity")
    t.n("number_minus_Infinity", "-Infinity")
    t.n("number_NaN_in_array", "[NaN]")
    t.n("number_NaN", "NaN")
    t.n("number_fullwidth_digit_one", "[\u{FF11}]")
    t.n("number_arabic_indic_digit", "[\u{0661}]")
    t.n("number_unicode_minus_sign", "[\u{2212}1]")
    t.n("number_minus_foo", "[-foo]")
    t.n("number_minus_space_1", "- 1")
    t.n("number_minus_space_1_in_array", "[- 1]")
    t.n("number_minus_dot", "[-.123]")
    t.n("number_minus_alone", "-")
    t.n("number_minus_alone_in_array", "[-]")
    t.n("number_double_minus", "--1")
    t.n("number_trailing_minus", "1-")
    t.n("number_plus_expression", "1+2")
    t.n("number_minus_expression_in_array", "[1,2-3]")
    t.n("number_-1x", "[-1x]")
    t.n("number_1ea", "[1ea]")
    t.n("number_hex_0x1", "[0x1]")
    t.n("number_hex_0x10", "0x10")
    t.n("number_hex_0x42", "[0x42]")
    t.n("number_minus_hex", "-0x1")
    t.n("number_binary", "[0b101]")
    t.n("number_underscore_separator", "1_000")
    t.n("number_e1_without_mantissa", "[e1]")
    t.n("number_E1_without_mantissa", "[E1]")
    t.n("number_minus_e1", "[-e1]")
    t.n("number_suffix_f", "[1f]")
    t.n("number_suffix_L", "[1L]")
    t.n("number_trailing_e_in_array", "[1,2e]")
}

private func addStringAcceptCases(_ t: inout ConformanceTable) {
    t.y("string_1_2_3_bytes_UTF-8_escapes", #"["\u0060\u012a\u12AB"]"#)
    t.y("string_accepted_surrogate_pair", #"["\uD801\udc37"]"#)
    t.y("string_accepted_surrogate_pairs", #"["\ud83d\ude39\ud83d\udc8d"]"#)
    t.y("string_allowed_escapes", #"["\"\\\/\b\f\n\r\t"]"#)
    t.y("string_backslash_and_u_escaped_zero", #"["\\u0000"]"#)
    t.y("string_backslash_doublequotes", #"["\""]"#)
    t.y("string_comments_inside", #"["a/*b*/c/*d//e"]"#)
    t.y("string_double_escape_a", #"["\\a"]"#)
    t.y("string_double_escape_n", #"["\\n"]"#)
    t.y("string_escaped_control_character", #"["\u0012"]"#)
    t.y("string_escaped_noncharacter", #"["\uFFFF"]"#)
    t.y("string_in_array", #"["asd"]"#)
    t.y("string_in_array_with_leading_space", #"[ "asd"]"#)
    t.y("string_last_surrogates_1_and_2", #"["\uDBFF\uDFFF"]"#)
    t.y("string_first_surrogate_pair", #"["\uD800\uDC00"]"#)
    t.y("string_nbsp_uescaped", #"["new\u00A0line"]"#)
    t.y("string_null_escape", #"["\u0000"]"#)
    t.y("string_null_escape_top_level", #""\u0000""#)
    t.y("string_one_byte_utf8_escape", #"["\u002c"]"#)
    t.y("string_pi", #"["π"]"#)
    t.y("string_simple_ascii", #"["asd "]"#)
    t.y("string_space", #"" ""#)
    t.y("string_three_byte_utf8_escape", #"["\u0821"]"#)
    t.y("string_two_byte_utf8_escape", #"["\u0123"]"#)
    t.y("string_u+2028_line_sep_raw", "[\"\u{2028}\"]")
    t.y("string_u+2029_par_sep_raw", "[\"\u{2029}\"]")
    t.y("string_uEscape_mixed_case", #"["\u0061\u30af\u30EA\u30b9"]"#)
    t.y("string_uescaped_newline", #"["new\u000Aline"]"#)
    t.y("string_unescaped_char_delete", "[\"\u{7F}\"]")
    t.y("string_with_del_character", "[\"a\u{7F}a\"]")
    t.y("string_unicode_escape", #"["\uA66D"]"#)
    t.y("string_unicode_escaped_backslash", #"["\u005C"]"#)
    t.y("string_unicode_escaped_double_quote", #"["\u0022"]"#)
    t.y("string_unicode_raw_2", #"["⍂㈴⍂"]"#)
    t.y("string_unicode_U+10FFFE_nonchar", #"["\uDBFF\uDFFE"]"#)
    t.y("string_unicode_U+FDD0_nonchar", #"["\uFDD0"]"#)
    t.y("string_unicode_U+FFFE_nonchar", #"["\uFFFE"]"#)
    t.y("string_unicode_U+1FFFE_nonchar", #"["\uD83F\uDFFE"]"#)
    t.y("string_unicode_U+200B_zero_width_space", #"["\u200B"]"#)
    t.y("string_unicode_U+2064_invisible_plus", #"["\u2064"]"#)
    t.y("string_utf8_raw", #"["€𝄞"]"#)
    t.y("string_emoji_raw", "\"😀\"")
    t.y("string_emoji_zwj_sequence_raw", "\"👩‍👩‍👧\"")
    t.y("string_cyrillic_raw", "\"Привет, мир\"")
    t.y("string_chinese_raw", "\"中文字符\"")
    t.y("string_hex_both_cases", #""\u00e9\u00E9\u00aB""#)
    t.y("string_escaped_solidus", #""\/""#)
    t.y("string_unescaped_solidus", #""/""#)
    t.y("string_unescaped_single_quote", #""it's""#)
    t.y("string_combining_accent_raw", "\"e\u{301}\"")
    t.y("string_long", "\"" + String(repeating: "abcdefghij", count: 10_000) + "\"")
    t.y("string_all_short_escapes_repeated", #""\n\n\r\r\t\t\b\b\f\f\/\/\\\\\"\"""#)
}

private func addStringRejectCases(_ t: inout ConformanceTable) {
    t.n("string_1_surrogate_then_escape", #"["\uD800\"]"#)
    t.n("string_1_surrogate_then_escape_u", #"["\uD800\u"]"#)
    t.n("string_1_surrogate_then_escape_u1", #"["\uD800\u1"]"#)
    t.n("string_1_surrogate_then_escape_u1x", #"["\uD800\u1x"]"#)
    t.n("string_lone_high_surrogate", #""\uD800""#)
    t.n("string_lone_high_surrogate_max", #""\uDBFF""#)
    t.n("string_lone_low_surrogate", #""\uDC00""#)
    t.n("string_lone_low_surrogate_max", #""\uDFFF""#)
    t.n("string_high_surrogate_then_escaped_A", #""\uD800\u0041""#)
    t.n("string_high_surrogate_then_raw_x", #""\uD800x""#)
    t.n("string_high_surrogate_then_newline_escape", #""\uD800\n""#)
    t.n("string_two_high_surrogates", #""\uD800\uD800""#)
    t.n("string_reversed_surrogate_pair", #""\uDC00\uD800""#)
    t.n("string_low_surrogate_between_text", #""a\uDFFFb""#)
    t.n("string_high_surrogate_at_end_of_array", #"["\uD834"]"#)
    t.n("string_incomplete_surrogate", #"["\uD834\uDd"]"#)
    t.n("string_incomplete_surrogate_escape_invalid", #"["\uD800\uD800\x"]"#)
    t.n("string_accentuated_char_no_quotes", "[é]")
    t.nBytes("string_backslash_00", utf8(#"["\"#) + [0x00] + utf8(#""]"#))
    t.n("string_escape_x", #"["\x00"]"#)
    t.n("string_escape_x41", #""\x41""#)
    t.n("string_escape_zero", #""\0""#)
    t.n("string_escape_single_quote", #""\'""#)
    t.n("string_escape_v", #""\v""#)
    t.n("string_escape_e", #""\e""#)
    t.n("string_escape_a", #"["\a"]"#)
    t.n("string_escape_capital_U", #""\UA66D""#)
    t.n("string_escaped_backslash_bad", #"["\\\"]"#)
    t.n("string_escaped_ctrl_char_tab", "[\"\\\t\"]")
    t.n("string_escaped_emoji", "[\"\\😀\"]")
    t.n("string_incomplete_escape", #"["\"]"#)
    t.n("string_incomplete_escaped_character", #"["\u00A"]"#)
    t.n("string_u_escape_too_short", #""\u12""#)
    t.n("string_u_escape_empty", #""\u""#)
    t.n("string_u_escape_minus", #""\u-123""#)
    t.n("string_u_escape_space", #""\u 123""#)
    t.n("string_u_escape_non_hex", #""\u123G""#)
    t.n("string_invalid_unicode_escape", #"["\uqqqq"]"#)
    t.nBytes("string_invalid_utf8_after_escape", utf8(#"["\"#) + [0xE5] + utf8(#""]"#))
    t.n("string_no_quotes_with_bad_escape", #"[\n]"#)
    t.n("string_single_doublequote", "\"")
    t.n("string_single_quote", "['single quote']")
    t.n("string_single_quoted_top_level", "'x'")
    t.n("string_single_string_no_double_quotes", "abc")
    t.n("string_start_escape_unclosed", #"["\"#)
    t.n("string_unclosed", #""abc"#)
    t.n("string_unclosed_in_array", #"["abc]"#)
    t.n("string_unclosed_key", #"{"abc:1}"#)
    t.n("string_with_trailing_garbage", #"""x"#)
    t.n("string_backtick_quoted", "`x`")
    t.nBytes("string_unescaped_nul", utf8(#"["a"#) + [0x00] + utf8(#"a"]"#))
    t.n("string_unescaped_newline", "[\"new\nline\"]")
    t.n("string_unescaped_tab", "[\"\t\"]")
    t.n("string_unescaped_carriage_return", "[\"a\rb\"]")
    t.n("string_unescaped_0x1F", "[\"a\u{1F}\"]")
    t.n("string_unescaped_0x01", "\"\u{01}\"")
    t.n("string_unescaped_ctrl_in_key", "{\"a\u{02}\":1}")
}

private func addUTF8Cases(_ t: inout ConformanceTable) {
    // Valid boundaries
    t.yBytes("utf8_2byte_min_U+0080", quoted([0xC2, 0x80]))
    t.yBytes("utf8_2byte_max_U+07FF", quoted([0xDF, 0xBF]))
    t.yBytes("utf8_3byte_min_U+0800", quoted([0xE0, 0xA0, 0x80]))
    t.yBytes("utf8_3byte_U+D000", quoted([0xED, 0x80, 0x80]))
    t.yBytes("utf8_3byte_before_surrogates_U+D7FF", quoted([0xED, 0x9F, 0xBF]))
    t.yBytes("utf8_3byte_after_surrogates_U+E000", quoted([0xEE, 0x80, 0x80]))
    t.yBytes("utf8_3byte_max_U+FFFF", quoted([0xEF, 0xBF, 0xBF]))
    t.yBytes("utf8_noncharacter_U+FFFE", quoted([0xEF, 0xBF, 0xBE]))
    t.yBytes("utf8_4byte_min_U+10000", quoted([0xF0, 0x90, 0x80, 0x80]))
    t.yBytes("utf8_4byte_U+100000", quoted([0xF4, 0x80, 0x80, 0x80]))
    t.yBytes("utf8_4byte_max_U+10FFFF", quoted([0xF4, 0x8F, 0xBF, 0xBF]))
    t.yBytes("utf8_bom_inside_string", quoted([0xEF, 0xBB, 0xBF]))
    t.y("utf8_in_key_and_value", "{\"ключ\":\"值\",\"🔑\":\"é\"}")
    // Stray continuation bytes
    t.nBytes("utf8_stray_continuation_0x80", quoted([0x80]))
    t.nBytes("utf8_stray_continuation_0xBF", quoted([0xBF]))
    t.nBytes("utf8_two_stray_continuations", quoted([0x80, 0x80]))
    t.nBytes("utf8_continuation_after_complete_char", quoted([0xC3, 0xA9, 0x80]))
    // Truncated sequences
    t.nBytes("utf8_truncated_2byte", quoted([0xC3]))
    t.nBytes("utf8_truncated_3byte_after_1", quoted([0xE4]))
    t.nBytes("utf8_truncated_3byte_after_2", quoted([0xE4, 0xB8]))
    t.nBytes("utf8_truncated_4byte_after_1", quoted([0xF0]))
    t.nBytes("utf8_truncated_4byte_after_2", quoted([0xF0, 0x9F]))
    t.nBytes("utf8_truncated_4byte_after_3", quoted([0xF0, 0x9F, 0x98]))
    t.nBytes("utf8_truncated_at_end_of_input", [0x22, 0xE4, 0xB8])
    t.nBytes("utf8_lead_2byte_then_ascii", quoted([0xC3, 0x41]))
    t.nBytes("utf8_lead_3byte_then_ascii", quoted([0xE4, 0x41, 0x41]))
    t.nBytes("utf8_lead_4byte_then_ascii", quoted([0xF0, 0x9F, 0x41, 0x41]))
    t.nBytes("utf8_lead_then_quote_swallowed", [0x5B, 0x22, 0xC3, 0x22, 0x5D])
    // Overlong encodings
    t.nBytes("utf8_overlong_2byte_nul_C0_80", quoted([0xC0, 0x80]))
    t.nBytes("utf8_overlong_2byte_slash_C0_AF", quoted([0xC0, 0xAF]))
    t.nBytes("utf8_overlong_2byte_quote_C0_A2", quoted([0xC0, 0xA2]))
    t.nBytes("utf8_overlong_2byte_max_C1_BF", quoted([0xC1, 0xBF]))
    t.nBytes("utf8_overlong_3byte_nul_E0_80_80", quoted([0xE0, 0x80, 0x80]))
    t.nBytes("utf8_overlong_3byte_max_E0_9F_BF", quoted([0xE0, 0x9F, 0xBF]))
    t.nBytes("utf8_overlong_4byte_nul_F0_80_80_80", quoted([0xF0, 0x80, 0x80, 0x80]))
    t.nBytes("utf8_overlong_4byte_max_F0_8F_BF_BF", quoted([0xF0, 0x8F, 0xBF, 0xBF]))
    // UTF-8 encoded surrogates (also CESU-8)
    t.nBytes("utf8_encoded_high_surrogate_ED_A0_80", quoted([0xED, 0xA0, 0x80]))
    t.nBytes("utf8_encoded_high_surrogate_ED_AF_BF", quoted([0xED, 0xAF, 0xBF]))
    t.nBytes("utf8_encoded_low_surrogate_ED_B0_80", quoted([0xED, 0xB0, 0x80]))
    t.nBytes("utf8_encoded_low_surrogate_ED_BF_BF", quoted([0xED, 0xBF, 0xBF]))
    t.nBytes("utf8_cesu8_surrogate_pair", quoted([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]))
    // Beyond U+10FFFF and never-valid bytes
    t.nBytes("utf8_above_max_F4_90_80_80", quoted([0xF4, 0x90, 0x80, 0x80]))
    t.nBytes("utf8_above_max_F7_BF_BF_BF", quoted([0xF7, 0xBF, 0xBF, 0xBF]))
    t.nBytes("utf8_byte_F5_sequence", quoted([0xF5, 0x80, 0x80, 0x80]))
    t.nBytes("utf8_5byte_sequence_F8", quoted([0xF8, 0x88, 0x80, 0x80, 0x80]))
    t.nBytes("utf8_6byte_sequence_FC", quoted([0xFC, 0x84, 0x80, 0x80, 0x80, 0x80]))
    t.nBytes("utf8_byte_FE", quoted([0xFE]))
    t.nBytes("utf8_byte_FF", quoted([0xFF]))
    t.nBytes("utf8_invalid_in_key", utf8(#"{""#) + [0xFF] + utf8(#"":1}"#))
    // Invalid bytes outside strings
    t.nBytes("utf8_invalid_byte_in_array", [0x5B, 0xFF, 0x5D])
    t.nBytes("utf8_continuation_after_document", utf8("[1]") + [0x80])
    t.nBytes("utf8_lone_continuation_document", [0x80])
    t.nBytes("utf8_raw_e_acute_top_level", [0xC3, 0xA9])
    t.nBytes("utf8_overlong_bracket_outside_string", [0x5B, 0xC1, 0x9D])
    t.nBytes("utf8_overlong_nul_in_array", [0x5B, 0xC0, 0x80, 0x5D])
    // Byte order marks and other encodings
    t.nBytes("utf8_bom_before_array", [0xEF, 0xBB, 0xBF] + utf8("[]"))
    t.nBytes("utf8_bom_before_string", [0xEF, 0xBB, 0xBF] + utf8(#""a""#))
    t.nBytes("utf8_bom_before_number", [0xEF, 0xBB, 0xBF] + utf8("1"))
    t.nBytes("utf8_bom_only", [0xEF, 0xBB, 0xBF])
    t.nBytes("utf8_incomplete_bom", [0xEF, 0xBB] + utf8("{}"))
    t.nBytes("utf8_bom_after_whitespace", utf8(" ") + [0xEF, 0xBB, 0xBF] + utf8("[]"))
    t.nBytes("utf8_bom_after_value", utf8("[]") + [0xEF, 0xBB, 0xBF])
    t.nBytes("utf16be_bom_document", [0xFE, 0xFF, 0x00, 0x5B, 0x00, 0x5D])
    t.nBytes("utf16le_bom_document", [0xFF, 0xFE, 0x5B, 0x00, 0x5D, 0x00])
    t.nBytes("utf16le_no_bom_document", [0x5B, 0x00, 0x5D, 0x00])
    t.nBytes("utf32be_document", [0x00, 0x00, 0x00, 0x5B, 0x00, 0x00, 0x00, 0x5D])
    t.nBytes("latin1_e_acute_in_string", quoted([0xE9]))
}

/// Loops over byte ranges and truncations; every generated case is named after its input.
private func addGeneratedCases(_ t: inout ConformanceTable) {
    // Every proper prefix of a valid document is invalid (and the whole document is valid).
    let documents: [(label: String, bytes: [UInt8])] = [
        ("object_doc", utf8(#"{"a":[1,"b",true,null,{"c":-1.5e3}]}"#)),
        ("array_doc", utf8(#"["x\u00e9\uD83D\uDE00\n",-0.5E+2,false,{"k":[]}]"#)),
        ("raw_utf8_string", utf8("\"é中😀\"")),
        ("escaped_string", utf8(#""\uD83D\uDE00\"\\""#)),
        ("true", utf8("true")),
        ("false", utf8("false")),
        ("null", utf8("null")),
    ]
    for doc in documents {
        t.yBytes("truncation_\(doc.label)_complete", doc.bytes)
        for length in 0..<doc.bytes.count {
            t.nBytes("truncation_\(doc.label)_prefix_\(length)", Array(doc.bytes[0..<length]))
        }
    }

    // Raw control characters inside a string are rejected.
    for b in UInt8(0x00)...UInt8(0x1F) {
        t.nBytes("gen_string_raw_control_\(hex(b))", quoted([0x61, b, 0x62]))
    }
    // Every other ASCII byte except `"` and `\` (including DEL) is accepted raw.
    for b in UInt8(0x20)...UInt8(0x7F) where b != 0x22 && b != 0x5C {
        t.yBytes("gen_string_raw_ascii_\(hex(b))", quoted([b]))
    }
    // A single byte >= 0x80 between quotes is never valid UTF-8.
    for b in UInt8(0x80)...UInt8(0xFF) {
        t.nBytes("gen_string_lone_high_byte_\(hex(b))", quoted([b]))
    }
    // Backslash followed by each printable ASCII byte: only the RFC short escapes are valid.
    let shortEscapes: Set<UInt8> = Set(utf8(#""\/bfnrt"#))
    for b in UInt8(0x20)...UInt8(0x7E) where b != UInt8(ascii: "u") {
        t.expect(shortEscapes.contains(b), "gen_string_escape_\(hex(b))", quoted([0x5C, b]))
    }
    // Insignificant whitespace: only space, tab, LF and CR, before, inside and after a value.
    let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
    for b in Array(UInt8(0x00)...UInt8(0x20)) + [0x7F] {
        let ok = whitespace.contains(b)
        t.expect(ok, "gen_ws_before_\(hex(b))", [b] + utf8("[]"))
        t.expect(ok, "gen_ws_inside_\(hex(b))", utf8("[1") + [b] + utf8("]"))
        t.expect(ok, "gen_ws_after_\(hex(b))", utf8("{}") + [b])
    }
    // Every single-byte document: only a digit is a complete JSON text.
    for b in UInt8(0x00)...UInt8(0xFF) {
        t.expect(b >= 0x30 && b <= 0x39, "gen_single_byte_document_\(hex(b))", [b])
    }
}

// MARK: - Helpers for the focused tests

private func parseResult(_ bytes: [UInt8], maxDepth: Int = 512) -> Result<JSONValue, JSONParseError> {
    do throws(JSONParseError) {
        return .success(try JSONParser.parse(bytes, maxDepth: maxDepth))
    } catch {
        return .failure(error)
    }
}

/// Structural identity: strings compared by their UTF-8 bytes (no canonical equivalence),
/// numbers by literal text, object entries in order.
private func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x), .number(let y)): return x.text == y.text
    case (.string(let x), .string(let y)): return Array(x.utf8) == Array(y.utf8)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
    case (.object(let x), .object(let y)):
        return x.entries.count == y.entries.count && zip(x.entries, y.entries).allSatisfy {
            Array($0.key.utf8) == Array($1.key.utf8) && identical($0.value, $1.value)
        }
    default: return false
    }
}

private func nestedArrays(_ depth: Int, inner: String = "") -> [UInt8] {
    Array(repeating: UInt8(ascii: "["), count: depth) + utf8(inner) + Array(repeating: UInt8(ascii: "]"), count: depth)
}

/// `{"a":{"a":...{"a":1}...}}` with `depth` objects.
private func nestedObjects(_ depth: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(depth * 6 + 1)
    for _ in 0..<depth { out += utf8(#"{"a":"#) }
    out.append(UInt8(ascii: "1"))
    out += Array(repeating: UInt8(ascii: "}"), count: depth)
    return out
}

/// `[{"a":[{"a":...` alternating, `depth` containers in total, closed.
private func nestedMixed(_ depth: Int) -> [UInt8] {
    var open: [UInt8] = []
    var close: [UInt8] = []
    for i in 0..<depth {
        if i % 2 == 0 {
            open.append(UInt8(ascii: "["))
            close.append(UInt8(ascii: "]"))
        } else {
            open += utf8(#"{"a":"#)
            close.append(UInt8(ascii: "}"))
        }
    }
    return open + utf8("null") + close.reversed()
}

// MARK: - Tests

final class JSONConformanceTests: XCTestCase {
    private static let cases: [ConformanceCase] = makeConformanceCases()

    // MARK: Table

    func testConformanceTable() {
        var failures: [String] = []
        for c in Self.cases {
            switch parseResult(c.input) {
            case .success:
                if !c.accept { failures.append("\(c.name): expected reject, parser accepted  input: \(describe(c.input))") }
            case .failure(let error):
                if c.accept {
                    failures.append("\(c.name): expected accept, parser rejected (\(error.line):\(error.column) offset \(error.offset): \(error.message))  input: \(describe(c.input))")
                } else if error.offset < 0 || error.offset > c.input.count || error.line < 1 || error.column < 1 || error.message.isEmpty {
                    failures.append("\(c.name): rejected but error is malformed (offset \(error.offset), line \(error.line), column \(error.column), message '\(error.message)')  input: \(describe(c.input))")
                }
            }
        }
        if !failures.isEmpty {
            XCTFail("\(failures.count) of \(Self.cases.count) conformance cases failed:\n" + failures.joined(separator: "\n"))
        }
    }

    func testConformanceTableShape() {
        XCTAssertGreaterThanOrEqual(Self.cases.count, 150)
        var seen = Set<String>()
        var problems: [String] = []
        for c in Self.cases {
            if !seen.insert(c.name).inserted { problems.append("duplicate case name \(c.name)") }
            if c.accept != c.name.hasPrefix("y_") || c.accept == c.name.hasPrefix("n_") {
                problems.append("case \(c.name) has a prefix that does not match accept=\(c.accept)")
            }
        }
        if !problems.isEmpty { XCTFail(problems.joined(separator: "\n")) }
        XCTAssertGreaterThan(Self.cases.filter { $0.accept }.count, 100)
        XCTAssertGreaterThan(Self.cases.filter { !$0.accept }.count, 100)
    }

    // MARK: Decoded values

    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue? {
        parseBytes(utf8(text), file: file, line: line)
    }

    private func parseBytes(_ bytes: [UInt8], maxDepth: Int = 512, file: StaticString = #filePath, line: UInt = #line) -> JSONValue? {
        switch parseResult(bytes, maxDepth: maxDepth) {
        case .success(let v): return v
        case .failure(let e):
            XCTFail("unexpected parse error \(e.line):\(e.column) (offset \(e.offset)): \(e.message) for \(describe(bytes))", file: file, line: line)
            return nil
        }
    }

    /// Parses a JSON string document and checks the decoded string's exact UTF-8 bytes.
    private func assertDecodes(_ json: String, to expected: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        assertDecodesBytes(utf8(json), to: expected, file: file, line: line)
    }

    private func assertDecodesBytes(_ json: [UInt8], to expected: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        guard let v = parseBytes(json, file: file, line: line) else { return }
        guard case .string(let s) = v else {
            XCTFail("expected a string from \(describe(json)), got \(v)", file: file, line: line)
            return
        }
        XCTAssertEqual(Array(s.utf8), expected, "decoding \(describe(json))", file: file, line: line)
    }

    func testDecodedStringEscapes() {
        assertDecodes(#""\"\\\/\b\f\n\r\t""#, to: [0x22, 0x5C, 0x2F, 0x08, 0x0C, 0x0A, 0x0D, 0x09])
        assertDecodes(#""\u0000""#, to: [0x00])
        assertDecodes(#""a\u0000b""#, to: [0x61, 0x00, 0x62])
        assertDecodes(#""\u00e9\u00E9\u00c9""#, to: utf8("ééÉ"))
        assertDecodes(#""\u0041\u03A9\u4E2D\uD83D\uDE00""#, to: utf8("AΩ中😀"))
        assertDecodes(#""\uD834\uDD1E""#, to: [0xF0, 0x9D, 0x84, 0x9E])
        assertDecodes(#""\uD800\uDC00""#, to: [0xF0, 0x90, 0x80, 0x80])
        assertDecodes(#""\uDBFF\uDFFF""#, to: [0xF4, 0x8F, 0xBF, 0xBF])
        assertDecodes(#""\ud83d\ude00""#, to: utf8("😀"))
        assertDecodes(#""\u0065\u0301""#, to: [0x65, 0xCC, 0x81])  // no normalisation
        assertDecodes(#""\uFEFF""#, to: [0xEF, 0xBB, 0xBF])
        assertDecodes(#""\uFFFF""#, to: [0xEF, 0xBF, 0xBF])
        assertDecodes(#""\u007F""#, to: [0x7F])
        assertDecodes(#""\u0080""#, to: [0xC2, 0x80])
        assertDecodes(#""\u07FF\u0800""#, to: [0xDF, 0xBF, 0xE0, 0xA0, 0x80])
        assertDecodes(#""\u005C\u0022\u002F""#, to: utf8(#"\"/"#))
        assertDecodes(#""\\u0041""#, to: utf8(#"\u0041"#))
        assertDecodes(#""""#, to: [])
    }

    func testDecodedRawUTF8() {
        let samples = ["Привет, мир", "中文字符", "😀👍🏽🇨🇭", "é", "e\u{301}", "π€𝄞", "\u{2028}\u{2029}", "a\u{7F}b", "\u{FEFF}", "\u{10FFFF}", "ÿ"]
        for s in samples {
            assertDecodes("\"" + s + "\"", to: utf8(s))
        }
        // Raw bytes and escapes of the same code points decode identically.
        assertDecodesBytes(quoted([0xF0, 0x9F, 0x98, 0x80]), to: [0xF0, 0x9F, 0x98, 0x80])
        assertDecodes("\"x\\u00e9\u{E9}\"", to: [0x78, 0xC3, 0xA9, 0xC3, 0xA9])
    }

    func testDecodedLiteralsAndContainers() {
        XCTAssertEqual(parse("true"), .bool(true))
        XCTAssertEqual(parse("false"), .bool(false))
        XCTAssertEqual(parse("null"), .null)
        XCTAssertEqual(parse(" \n null \t"), .null)
        XCTAssertEqual(parse(#""x""#), .string("x"))
        XCTAssertEqual(parse("[]"), .array([]))
        XCTAssertEqual(parse("[true,false,null]"), .array([.bool(true), .bool(false), .null]))
        XCTAssertEqual(parse(#"[ "a" , [ ] ]"#), .array([.string("a"), .array([])]))
        if case .number(let n)? = parse("2") { XCTAssertEqual(n.text, "2") } else { XCTFail("2 is not a number") }

        guard case .object(let empty)? = parse("{ }") else { return XCTFail("{ } is not an object") }
        XCTAssertEqual(empty.count, 0)
        XCTAssertTrue(empty.entries.isEmpty)

        // The document from the brief, checked all the way down.
        guard case .object(let doc)? = parse(#"{"a":[1,"b",true,null,{"c":-1.5e3}]}"#) else { return XCTFail("not an object") }
        XCTAssertEqual(doc.count, 1)
        guard case .array(let items)? = doc["a"] else { return XCTFail("a is not an array") }
        XCTAssertEqual(items.count, 5)
        if items.count == 5 {
            if case .number(let one) = items[0] { XCTAssertEqual(one.text, "1"); XCTAssertEqual(one.int64, 1) } else { XCTFail("items[0]") }
            XCTAssertEqual(items[1], .string("b"))
            XCTAssertEqual(items[2], .bool(true))
            XCTAssertEqual(items[3], .null)
            guard case .object(let inner) = items[4], case .number(let c)? = inner["c"] else { return XCTFail("items[4]") }
            XCTAssertEqual(c.text, "-1.5e3")
            XCTAssertEqual(c.double, -1500)
            XCTAssertNil(c.int64)
        }
    }

    func testDecodedObjects() {
        // Duplicate keys: lookup returns the last value, entries keep both in order.
        guard case .object(let dup)? = parse(#"{"k":1,"other":true,"k":2}"#) else { return XCTFail("not an object") }
        XCTAssertEqual(dup.entries.count, 3)
        XCTAssertEqual(dup.entries.map { $0.key }, ["k", "other", "k"])
        if case .number(let last)? = dup["k"] { XCTAssertEqual(last.text, "2") } else { XCTFail("dup[k] is not a number") }
        if case .number(let first) = dup.entries[0].value { XCTAssertEqual(first.text, "1") } else { XCTFail("first k") }
        XCTAssertEqual(dup["other"], .bool(true))

        guard case .object(let dupStrings)? = parse(#"{"a":"b","a":"c"}"#) else { return XCTFail("not an object") }
        XCTAssertEqual(dupStrings["a"], .string("c"))
        XCTAssertEqual(dupStrings.entries.map { $0.value }, [.string("b"), .string("c")])

        // Key order is document order, not sorted.
        guard case .object(let ordered)? = parse(#"{"z":1,"a":2,"m":3}"#) else { return XCTFail("not an object") }
        XCTAssertEqual(ordered.entries.map { $0.key }, ["z", "a", "m"])
        XCTAssertEqual(ordered.count, 3)
        XCTAssertNil(ordered["missing"])
        XCTAssertNil(ordered["Z"])

        // Keys are decoded like any string.
        guard case .object(let keys)? = parse(#"{"\u0041\n":true,"é":false,"":null,"\uD83D\uDE00":[],"a\u0000b":1}"#) else {
            return XCTFail("not an object")
        }
        XCTAssertEqual(keys["A\n"], .bool(true))
        XCTAssertEqual(keys["é"], .bool(false))
        XCTAssertEqual(keys[""], .null)
        XCTAssertEqual(keys["😀"], .array([]))
        XCTAssertNotNil(keys["a\u{0}b"])
        XCTAssertEqual(keys.entries.map { Array($0.key.utf8) }, [[0x41, 0x0A], [0xC3, 0xA9], [], [0xF0, 0x9F, 0x98, 0x80], [0x61, 0x00, 0x62]])

        // Insignificant whitespace does not change the value.
        XCTAssertEqual(parse(" { \"a\" : [ 1 , 2 ] } "), parse(#"{"a":[1,2]}"#))
    }

    // MARK: Numbers

    private func number(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONNumber? {
        guard let v = parse(text, file: file, line: line) else { return nil }
        guard case .number(let n) = v else {
            XCTFail("\(text) did not parse as a number: \(v)", file: file, line: line)
            return nil
        }
        return n
    }

    func testNumberTextIsLiteralAsWritten() {
        let hundredDigits = "1" + String(repeating: "234567890", count: 11)
        XCTAssertEqual(hundredDigits.count, 100)
        let literals = ["0", "-0", "0.0", "-0.0", "1E+2", "1e+2", "1e-400", "1e400", "0e0", "1.50", "-1.5e3", "2.5E3",
                        "123.456e78", "-9223372036854775808", "9223372036854775807", "9223372036854775808", hundredDigits,
                        "1e007", "0.000", "-0e-0", "0.30000000000000004", "5e-324"]
        for literal in literals {
            XCTAssertEqual(number(literal)?.text, literal)
            XCTAssertEqual(number(" \t" + literal + "\r\n")?.text, literal, "surrounding whitespace is not part of the text")
        }
        guard case .array(let items)? = parse("[1.50, -0 ,1E+2]") else { return XCTFail("not an array") }
        XCTAssertEqual(items.compactMap { v -> String? in if case .number(let n) = v { return n.text }; return nil }, ["1.50", "-0", "1E+2"])
        guard case .object(let obj)? = parse(#"{"n":1.0e+28,"m":-0.000}"#) else { return XCTFail("not an object") }
        if case .number(let n)? = obj["n"] { XCTAssertEqual(n.text, "1.0e+28") } else { XCTFail("n") }
        if case .number(let m)? = obj["m"] { XCTAssertEqual(m.text, "-0.000") } else { XCTFail("m") }
    }

    func testNumberInt64() {
        XCTAssertEqual(number("0")?.int64, 0)
        XCTAssertEqual(number("1")?.int64, 1)
        XCTAssertEqual(number("-1")?.int64, -1)
        XCTAssertEqual(number("123")?.int64, 123)
        XCTAssertEqual(number("4294967296")?.int64, 4_294_967_296)
        XCTAssertEqual(number("9223372036854775807")?.int64, Int64.max)
        XCTAssertEqual(number("-9223372036854775808")?.int64, Int64.min)
        XCTAssertEqual(number("9223372036854775806")?.int64, Int64.max - 1)

        XCTAssertNotNil(number("9223372036854775808"))
        XCTAssertNil(number("9223372036854775808")?.int64)
        XCTAssertNil(number("-9223372036854775809")?.int64)
        XCTAssertNil(number("1" + String(repeating: "0", count: 99))?.int64)
        XCTAssertNil(number("1.5")?.int64)
        XCTAssertNil(number("1e2")?.int64)
        XCTAssertNil(number("1E2")?.int64)
        XCTAssertNil(number("-1.5e3")?.int64)
        XCTAssertNil(number("1.0e+28")?.int64)
    }

    func testNumberDouble() {
        XCTAssertEqual(number("0.1")?.double, 0.1)
        XCTAssertEqual(number("1e-7")?.double, 1e-7)
        XCTAssertEqual(number("2.5E3")?.double, 2500)
        XCTAssertEqual(number("1E+2")?.double, 100)
        XCTAssertEqual(number("-1.5e3")?.double, -1500)
        XCTAssertEqual(number("0e0")?.double, 0)
        XCTAssertEqual(number("123.456e78")?.double, 123.456e78)
        XCTAssertEqual(number("0.30000000000000004")?.double, 0.1 + 0.2)
        XCTAssertEqual(number("9223372036854775808")?.double, 9223372036854775808.0)
        XCTAssertEqual(number("9007199254740993")?.double, 9007199254740992.0)  // ties to even
        XCTAssertEqual(number("5e-324")?.double, Double.leastNonzeroMagnitude)
        XCTAssertEqual(number("2.2250738585072014e-308")?.double, Double.leastNormalMagnitude)
        XCTAssertEqual(number("1.7976931348623157e308")?.double, Double.greatestFiniteMagnitude)
        XCTAssertEqual(number("1e400")?.double, Double.infinity)
        XCTAssertEqual(number("-1e400")?.double, -Double.infinity)
        XCTAssertEqual(number("1e-400")?.double, 0)
        XCTAssertEqual(number("123")?.double, 123)

        let negativeZero = number("-0.0")?.double
        XCTAssertEqual(negativeZero, 0)
        XCTAssertEqual(negativeZero?.sign, .minus)
        XCTAssertEqual(number("-0")?.double.sign, .minus)
        XCTAssertEqual(number("0")?.double.sign, .plus)

        // Large sample: every accepted number literal converts exactly like Swift's own parser.
        let literals = ["0", "-0", "1", "-1", "0.5", "-0.5", "1e10", "1E-10", "3.141592653589793", "2.718281828459045e0",
                        "6.02214076e23", "1.602176634e-19", "123456789012345678901234567890", "0.1e1", "10e-1",
                        "4.9406564584124654e-324", "8.98846567431158e307", "1" + String(repeating: "0", count: 99)]
        for literal in literals {
            XCTAssertEqual(number(literal)?.double, Double(literal), literal)
        }
    }

    // MARK: Depth

    private func assertRejected(_ bytes: [UInt8], maxDepth: Int = 512, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        switch parseResult(bytes, maxDepth: maxDepth) {
        case .success:
            XCTFail("\(what): expected rejection", file: file, line: line)
        case .failure(let e):
            XCTAssertTrue(e.offset >= 0 && e.offset <= bytes.count, "\(what): offset \(e.offset) out of range", file: file, line: line)
            XCTAssertFalse(e.message.isEmpty, "\(what): empty message", file: file, line: line)
        }
    }

    private func assertAccepted(_ bytes: [UInt8], maxDepth: Int = 512, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        if case .failure(let e) = parseResult(bytes, maxDepth: maxDepth) {
            XCTFail("\(what): unexpected error at offset \(e.offset): \(e.message)", file: file, line: line)
        }
    }

    func testDepthDefaultLimit() {
        assertAccepted(nestedArrays(512), "512 nested arrays")
        assertRejected(nestedArrays(513), "513 nested arrays")
        assertAccepted(nestedArrays(512, inner: "1"), "512 nested arrays around a scalar")
        assertRejected(nestedArrays(513, inner: "1"), "513 nested arrays around a scalar")
        assertAccepted(nestedObjects(512), "512 nested objects")
        assertRejected(nestedObjects(513), "513 nested objects")
        assertAccepted(nestedMixed(512), "512 alternating arrays/objects")
        assertRejected(nestedMixed(513), "513 alternating arrays/objects")
        // Depth is released when a container closes: two 512-deep siblings are fine.
        let half = nestedArrays(511)
        assertAccepted(utf8("[") + half + utf8(",") + half + utf8("]"), "two 512-deep siblings")
        assertAccepted(utf8("[" + Array(repeating: "[]", count: 5000).joined(separator: ",") + "]"), "5000 shallow siblings")
        // The structure that exceeds the limit is decoded correctly when within it.
        if let v = parseBytes(nestedArrays(512)) {
            var depth = 0
            var cur = v
            while case .array(let a) = cur {
                depth += 1
                guard let first = a.first else { break }
                cur = first
            }
            XCTAssertEqual(depth, 512)
        }
    }

    func testDepthParameter() {
        assertAccepted(utf8("[[1]]"), maxDepth: 2, "[[1]] with maxDepth 2")
        assertRejected(utf8("[[1]]"), maxDepth: 1, "[[1]] with maxDepth 1")
        assertAccepted(utf8("[]"), maxDepth: 1, "[] with maxDepth 1")
        assertAccepted(utf8(#"{"a":1}"#), maxDepth: 1, "flat object with maxDepth 1")
        assertRejected(utf8(#"{"a":{}}"#), maxDepth: 1, "nested object with maxDepth 1")
        assertAccepted(utf8(#"{"a":{}}"#), maxDepth: 2, "nested object with maxDepth 2")
        assertRejected(utf8(#"[1,2,{"a":3}]"#), maxDepth: 1, "object in array with maxDepth 1")
        assertAccepted(utf8(#"[1,2,{"a":3}]"#), maxDepth: 2, "object in array with maxDepth 2")
        assertAccepted(utf8("[[],[],[[]]]"), maxDepth: 3, "siblings with maxDepth 3")
        assertRejected(utf8("[[],[],[[[]]]]"), maxDepth: 3, "deep last sibling with maxDepth 3")
        assertAccepted(utf8("\"scalar\""), maxDepth: 1, "scalar with maxDepth 1")
        assertAccepted(nestedArrays(10), maxDepth: 10, "10 deep with maxDepth 10")
        assertRejected(nestedArrays(11), maxDepth: 10, "11 deep with maxDepth 10")
        assertAccepted(nestedObjects(10), maxDepth: 10, "10 objects with maxDepth 10")
        assertRejected(nestedObjects(11), maxDepth: 10, "11 objects with maxDepth 10")
        // Raising the limit allows deeper documents than the default.
        assertRejected(nestedArrays(1000), "1000 deep with the default limit")
        assertAccepted(nestedArrays(1000), maxDepth: 1000, "1000 deep with maxDepth 1000")
        assertRejected(nestedArrays(1001), maxDepth: 1000, "1001 deep with maxDepth 1000")
    }

    func testDepthHostileInputIsAnErrorNotACrash() {
        let n = 100_000
        assertRejected(Array(repeating: UInt8(ascii: "["), count: n), "100k unclosed arrays")
        assertRejected(nestedArrays(n), "100k closed arrays")
        var unclosedObjects: [UInt8] = []
        for _ in 0..<n { unclosedObjects += utf8(#"{"a":"#) }
        assertRejected(unclosedObjects, "100k unclosed objects")
        assertRejected(nestedObjects(n), "100k closed objects")
        assertRejected(nestedMixed(n), "100k alternating arrays/objects")
        assertRejected(utf8("[") + Array(repeating: UInt8(ascii: "{"), count: n), "100k braces without keys")
    }

    // MARK: Error positions

    private func assertError(_ bytes: [UInt8], maxDepth: Int = 512, offset: Int, line expectedLine: Int, column: Int,
                             file: StaticString = #filePath, line: UInt = #line) {
        switch parseResult(bytes, maxDepth: maxDepth) {
        case .success:
            XCTFail("expected an error for \(describe(bytes))", file: file, line: line)
        case .failure(let e):
            XCTAssertEqual(e.offset, offset, "offset for \(describe(bytes)) (message: \(e.message))", file: file, line: line)
            XCTAssertEqual(e.line, expectedLine, "line for \(describe(bytes)) (message: \(e.message))", file: file, line: line)
            XCTAssertEqual(e.column, column, "column for \(describe(bytes)) (message: \(e.message))", file: file, line: line)
            XCTAssertFalse(e.message.isEmpty, "message for \(describe(bytes))", file: file, line: line)
        }
    }

    private func assertError(_ text: String, offset: Int, line expectedLine: Int, column: Int,
                             file: StaticString = #filePath, line: UInt = #line) {
        assertError(utf8(text), offset: offset, line: expectedLine, column: column, file: file, line: line)
    }

    func testErrorPositions() {
        // `{`0 `\n`1 | ` `2 ` `3 `"`4 `a`5 `"`6 `:`7 ` `8 `1`9 `,`10 `\n`11 | ` `12 ` `13 `"`14 `b`15 `"`16 ` `17 `2`18
        assertError("{\n  \"a\": 1,\n  \"b\" 2\n}", offset: 18, line: 3, column: 7)
        // Trailing comma: the `]` where a value was expected.
        assertError("[1,]", offset: 3, line: 1, column: 4)
        // Empty input and whitespace only: end of input.
        assertError("", offset: 0, line: 1, column: 1)
        assertError("  \n ", offset: 4, line: 2, column: 2)
        // Unclosed containers and strings: end of input.
        assertError("[1, 2", offset: 5, line: 1, column: 6)
        assertError(#""abc"#, offset: 4, line: 1, column: 5)
        assertError("[\n\"abc", offset: 6, line: 2, column: 5)
        // Trailing garbage after the top-level value.
        assertError("[1] x", offset: 4, line: 1, column: 5)
        // `{`0 `"`1 `a`2 `"`3 `:`4 `1`5 `}`6 `\n`7 `\n`8 ` `9 ` `10 `}`11
        assertError("{\"a\":1}\n\n  }", offset: 11, line: 3, column: 3)
        // Mismatched bracket.
        assertError("[}", offset: 1, line: 1, column: 2)
        // Unexpected character on the second line.
        assertError("[1,\n  @]", offset: 6, line: 2, column: 3)
        // Three leading newlines, then `{`3 `"`4 `a`5 `"`6 `:`7 `[`8 `1`9 `,`10 `2`11 `,`12 `,`13
        assertError("\n\n\n{\"a\":[1,2,,3]}", offset: 13, line: 4, column: 11)
        // CRLF counts as one line break: `[`0 `\r`1 `\n`2 `1`3 `,`4 `\r`5 `\n`6 `]`7
        assertError("[\r\n1,\r\n]", offset: 7, line: 3, column: 1)
        // Columns count bytes, not characters: `[`0 `"`1 C3 2 A9 3 `"`4 `,`5 ` `6 `x`7
        assertError("[\"é\", x]", offset: 7, line: 1, column: 8)
        // Invalid UTF-8 lead byte inside a string: `[`0 `"`1 `a`2 `b`3 C0 4
        assertError(utf8(#"["ab"#) + [0xC0, 0x80] + utf8(#""]"#), offset: 4, line: 1, column: 5)
        // Raw control characters inside a string are reported at the control byte itself.
        assertError("\"a\tb\"", offset: 2, line: 1, column: 3)
        assertError("\"a\nb\"", offset: 2, line: 1, column: 3)
        // A BOM is an unexpected byte at offset 0.
        assertError([0xEF, 0xBB, 0xBF] + utf8("[]"), offset: 0, line: 1, column: 1)
        // Number grammar: the byte where a digit was required.
        assertError("[-]", offset: 2, line: 1, column: 3)
        assertError("[1.]", offset: 3, line: 1, column: 4)
        assertError("[01]", offset: 2, line: 1, column: 3)
        // Non-string key.
        assertError("{1:2}", offset: 1, line: 1, column: 2)
        // Nesting limit: the opening bracket of the 513th array, and of the 513th object.
        assertError(nestedArrays(513), offset: 512, line: 1, column: 513)
        assertError(nestedObjects(513), offset: 512 * 5, line: 1, column: 512 * 5 + 1)
        assertError(nestedArrays(4), maxDepth: 3, offset: 3, line: 1, column: 4)
    }

    func testErrorDescriptionIsUseful() {
        guard case .failure(let e) = parseResult(utf8("[1,]")) else { return XCTFail("expected an error") }
        XCTAssertFalse(e.message.isEmpty)
        XCTAssertFalse(e.description.isEmpty)
    }

    // MARK: Round-trip

    private func serialize(_ v: JSONValue) -> [UInt8] { JSONWriter.serialize(v) }

    func testRoundTripCanonicalTextIsByteIdentical() {
        let hundredDigits = "1" + String(repeating: "234567890", count: 11)
        let canonical: [String] = [
            #"{"a":[1,-2.5e10,"x\"y\\z\n",true,null],"é":"中文"}"#,
            "[]",
            "{}",
            "null",
            "true",
            "false",
            "0",
            "-0",
            #""""#,
            #""a/b""#,
            "[1E+2,0.5e-3,-0.0,1e400,1e-400,9223372036854775808,-9223372036854775808,1.50]",
            #""\u0000\u0001\u0010\u0019""#,
            #""\b\f\n\r\t""#,
            "\"😀👍🏽🇨🇭 Привет 中文\"",
            #"{"a":1,"a":2}"#,
            #"[[[]],{},[{}],[[{"":""}]]]"#,
            #"{"k":{"n":{"m":[null,false]}}}"#,
            "\"a\u{7F}b\"",
            "\"\u{2028}\u{2029}\"",
            #""\"\\""#,
            #"{"\n":"\t","\"":"\\"}"#,
            hundredDigits,
            "\"e\u{301}\"",
            "[0,1,-1,0.1,1e5,1E-5]",
            "\"\u{FEFF}\"",
            #"{"url":"https://example.com/a/b?c=d&e=f#g"}"#,
        ]
        for text in canonical {
            guard let v = parse(text) else { continue }
            XCTAssertEqual(serialize(v), utf8(text), "serialize(parse(\(describe(utf8(text)))))")
        }
        XCTAssertGreaterThanOrEqual(canonical.count, 20)
    }

    func testRoundTripNormalisesNonCanonicalInput() {
        let pairs: [(input: String, output: String)] = [
            (" [ 1 , 2 ] ", "[1,2]"),
            ("{ \"a\" : [ true ] }\n", #"{"a":[true]}"#),
            (#""\/""#, #""/""#),
            (#""\u0041""#, #""A""#),
            (#""\u00e9""#, "\"é\""),
            (#""\ud83d\ude00""#, "\"😀\""),
            (#""\u000a\u000D""#, #""\n\r""#),
            (#""\u0022\u005c""#, #""\"\\""#),
        ]
        for p in pairs {
            guard let v = parse(p.input) else { continue }
            XCTAssertEqual(serialize(v), utf8(p.output), "serialize(parse(\(describe(utf8(p.input)))))")
        }
    }

    func testWriterEscapesControlCharacters() {
        let short: [UInt8: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
        for c in UInt8(0x00)..<UInt8(0x20) {
            let out = serialize(.string(String(Character(Unicode.Scalar(c)))))
            if let s = short[c] {
                XCTAssertEqual(out, utf8("\"" + s + "\""), "control \(hex(c))")
            } else {
                // \u00XX; hex digit case is not part of the contract, so compare case-insensitively.
                let expected = "\"\\u00" + String(hex(c).dropFirst(2)).lowercased() + "\""
                XCTAssertEqual(String(decoding: out, as: UTF8.self).lowercased(), expected, "control \(hex(c))")
            }
        }
        XCTAssertEqual(serialize(.string("\u{1}")), utf8(#""\u0001""#))
        XCTAssertEqual(serialize(.string("\u{0}")), utf8(#""\u0000""#))
        XCTAssertEqual(serialize(.string("\"")), utf8(#""\"""#))
        XCTAssertEqual(serialize(.string("\\")), utf8(#""\\""#))
        XCTAssertEqual(serialize(.string("/")), utf8(#""/""#))
        XCTAssertEqual(serialize(.string("\u{7F}")), [0x22, 0x7F, 0x22])
        XCTAssertEqual(serialize(.string("é中😀")), utf8("\"é中😀\""))
        XCTAssertEqual(serialize(.string("\u{2028}")), [0x22, 0xE2, 0x80, 0xA8, 0x22])
        XCTAssertEqual(serialize(.array([.null, .bool(true), .bool(false), .string("s"), .array([])])), utf8(#"[null,true,false,"s",[]]"#))
    }

    /// The writer scans eight bytes at a time: every byte that needs escaping, at every position
    /// of strings of 0 to 19 bytes among plain, high (0x7F..0xFF) and near-miss (0x20, 0x21,
    /// 0x23, 0x5B, 0x5D) bytes, is escaped exactly as a byte-by-byte writer escapes it.
    func testWriterEscapesAtEveryPositionOfAWord() {
        func reference(_ s: String) -> [UInt8] { [0x22] + escapedByteByByte(Array(s.utf8)) + [0x22] }
        let fillers = ["a", "é", " ", "!", "#", "[", "]", "\u{7F}", "中", "😀"]
        let specials = ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\t", "\u{1}"]
        // `JSONLineBuffer` escapes the whole string where `writeString` copies the clean start
        // first, so each is checked: the last bytes of a string of eight or more are read as
        // the word ending at its end, and a short buffer grows as it is written.
        var line = JSONLineBuffer(capacity: 8)
        defer { line.deallocate() }
        for length in 0..<20 {
            for (k, filler) in fillers.enumerated() {
                let plain = String(repeating: filler, count: length)
                var out: [UInt8] = []
                JSONWriter.writeString(plain, into: &out)
                XCTAssertEqual(out, reference(plain), "\(length) x \(filler)")
                for at in 0..<length {
                    var chars = Array(plain)
                    chars[at] = Character(specials[(at + k) % specials.count])
                    let s = String(chars)
                    var o: [UInt8] = []
                    JSONWriter.writeString(s, into: &o)
                    XCTAssertEqual(o, reference(s), "\(length) x \(filler), special at \(at)")
                    line.removeAll()
                    line.appendString(s)
                    XCTAssertEqual(Array(line.bytes), o, "\(length) x \(filler), special at \(at), line buffer")
                }
            }
        }
        // Every byte that needs escaping at every position of every string of 1 to 17 bytes,
        // alone and with a second one after it, written by the line buffer into a fresh buffer
        // of its minimum size each time (AddressSanitizer catches a store past its room).
        for length in 1...17 {
            for at in 0..<length {
                for special in [UInt8(0x22), 0x5C, 0x0A, 0x00, 0x1F, 0x01] {
                    for second in [nil, at + 1 < length ? at + 1 : nil, length - 1] {
                        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                        bytes[at] = special
                        if let second, second != at { bytes[second] = UInt8(ascii: "\"") }
                        let s = String(decoding: bytes, as: UTF8.self)
                        var tight = JSONLineBuffer(capacity: 1)
                        tight.appendString(s)
                        XCTAssertEqual(Array(tight.bytes), reference(s), "\(bytes)")
                        tight.deallocate()
                    }
                }
            }
        }
        // Several to escape in one string, one word, or side by side (the escaping goes back to
        // words after each), up to 40 characters; and `JSONLineBuffer` writes the same bytes.
        for length in 0..<40 {
            for k in 1..<8 {
                let chars = (0..<length).map { i in Character((i + k) % 3 == 0 || i % k == 1 ? specials[(i * k) % specials.count] : fillers[(i + k) % fillers.count]) }
                let s = String(chars)
                var o: [UInt8] = []
                JSONWriter.writeString(s, into: &o)
                XCTAssertEqual(o, reference(s), "\(s.debugDescription)")
                line.removeAll()
                line.appendString(s)
                XCTAssertEqual(Array(line.bytes), o, "\(s.debugDescription)")
            }
        }
        // Past the 4 KiB a string is escaped in at a time, with escapes and a character of
        // several bytes on either side of each slice's end.
        for shift in 0..<6 {
            var text = String(repeating: "a", count: 4090 + shift) + "\n😀\"é\u{1}" + String(repeating: "b", count: 4090) + "\\中\t"
            text += String(repeating: "\n", count: 5000)
            var o: [UInt8] = []
            JSONWriter.writeString(text, into: &o)
            XCTAssertEqual(o, reference(text), "shift \(shift)")
            line.removeAll()
            line.appendString(text)
            XCTAssertEqual(Array(line.bytes), o, "shift \(shift)")
        }
    }

    /// `escape` stays within `6 * n + escapeSlack` bytes for every string, the worst case (every
    /// byte a control character, six bytes each) included: each call writes into an allocation
    /// of exactly that size and reads from one of exactly `n` bytes, so AddressSanitizer (`make
    /// sanitize-address`) catches a store or a load past either.
    func testEscapeStaysWithinItsRoom() {
        for n in 0...40 {
            for pattern in 0..<5 {
                let bytes: [UInt8] = (0..<n).map { i in
                    switch pattern {
                    case 0: return 0x01                                  // all six bytes each
                    case 1: return UInt8(ascii: "x")                     // none
                    case 2: return i % 2 == 0 ? 0x22 : 0x0A              // all two bytes each
                    case 3: return i == n - 1 ? 0x1F : 0xC3              // the last one only
                    default: return i % 9 == 8 ? 0x00 : UInt8(ascii: "y") // one a word, shifted
                    }
                }
                let src = UnsafeMutablePointer<UInt8>.allocate(capacity: max(n, 1))
                src.initialize(from: bytes, count: n)
                let room = 6 * n + JSONWriter.escapeSlack
                let dst = UnsafeMutablePointer<UInt8>.allocate(capacity: room)
                let end = JSONWriter.escape(src, count: n, to: dst)
                XCTAssertLessThanOrEqual(end - dst, 6 * n, "\(n) bytes, pattern \(pattern)")
                XCTAssertEqual(Array(UnsafeBufferPointer(start: dst, count: end - dst)), escapedByteByByte(bytes), "\(n) bytes, pattern \(pattern)")
                dst.deallocate()
                src.deallocate()
            }
        }
    }

    func testRoundTripValuesSurviveSerializeThenParse() {
        let allControls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        var values: [(String, JSONValue)] = [
            ("null", .null),
            ("true", .bool(true)),
            ("false", .bool(false)),
            ("empty string", .string("")),
            ("NUL", .string("\u{0}")),
            ("all controls", .string(allControls + "x")),
            ("U+0001", .string("\u{1}")),
            ("quote backslash slash", .string("\"\\/")),
            ("emoji", .string("😀👍🏽🇨🇭")),
            ("combining", .string("e\u{301}")),
            ("edge scalars", .string("\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}")),
            ("BOM in string", .string("\u{FEFF}start")),
            ("CRLF", .string("line1\r\nline2")),
            ("separators", .string("\u{2028}\u{2029}")),
            ("long", .string(String(repeating: "ab\"\\\n\u{1F}é", count: 1000))),
            ("empty array", .array([])),
            ("mixed array", .array([.null, .bool(true), .string("a"), .array([.array([])])])),
            ("array of control strings", .array((0..<0x20).map { .string(String(Character(Unicode.Scalar(UInt8($0))))) })),
        ]
        let parsedDocuments = [
            "[0,-0,1.50,1E+2,-2.5e-10,1e400,1e-400,9223372036854775808,-9223372036854775809]",
            #"{"a":1,"a":2,"b":{"a":3}}"#,
            #"{"a":{"b":[1,{"c":"\u0001"}]},"":null}"#,
            #"{"é":"中文","😀":["\ud83d\ude00"]}"#,
            #"[{"k":[{"k":[{"k":[]}]}]}]"#,
        ]
        for doc in parsedDocuments {
            if let v = parse(doc) { values.append((doc, v)) }
        }
        if let deep = parseBytes(nestedMixed(100)) { values.append(("100-deep mixed", deep)) }
        XCTAssertGreaterThanOrEqual(values.count, 20)

        for (label, v) in values {
            let bytes = serialize(v)
            switch parseResult(bytes) {
            case .success(let back):
                XCTAssertEqual(back, v, "round-trip of \(label)")
                XCTAssertTrue(identical(back, v), "byte-exact round-trip of \(label)")
                XCTAssertEqual(serialize(back), bytes, "second serialization of \(label) is stable")
            case .failure(let e):
                XCTFail("serialized \(label) does not parse: \(e.message) at \(e.offset) in \(describe(bytes))")
            }
        }
    }
}

/// The inside of a JSON string for `bytes`, escaped one byte at a time: what the word-at-a-time
/// escaping must write (`"`, `\`, the short escapes, other control bytes as lowercase `\u00XX`).
private func escapedByteByByte(_ bytes: [UInt8]) -> [UInt8] {
    let hex = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes {
        switch b {
        case 0x22: out += [0x5C, 0x22]
        case 0x5C: out += [0x5C, 0x5C]
        case 0x0A: out += [0x5C, UInt8(ascii: "n")]
        case 0x0D: out += [0x5C, UInt8(ascii: "r")]
        case 0x09: out += [0x5C, UInt8(ascii: "t")]
        case 0x08: out += [0x5C, UInt8(ascii: "b")]
        case 0x0C: out += [0x5C, UInt8(ascii: "f")]
        case ..<0x20: out += Array("\\u00".utf8) + [hex[Int(b >> 4)], hex[Int(b & 0xF)]]
        default: out.append(b)
        }
    }
    return out
}
