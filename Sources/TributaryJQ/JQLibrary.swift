import CJQ
import TributaryBase

/// libjq (jq 1.6, Debian's libjq1), opened with `dlopen("libjq.so.1")` when the first jq
/// program is compiled rather than linked: a config without jq never loads it, nor the
/// Oniguruma library it needs.
///
/// Every libjq function the project calls has a slot in the C table `tributary_jq`
/// (Sources/CJQ/shim.h), filled by the loader (`LibraryLoader`) from `dlsym`; Swift calls jq
/// only through the shim's wrappers, which take the table.
struct JQLibrary: LoadedLibrary, @unchecked Sendable {
    /// The libjq ABI the headers describe (jq 1.6; Debian package libjq1).
    static let loader = LibraryLoader(
        tributary_jq(), soname: "libjq.so.1", neededBy: "jq programs need", name: "libjq", debianPackage: "libjq1", oldest: "libjq from jq 1.6",
        slots: [
            (\.jq_init, "jq_init"), (\.jq_teardown, "jq_teardown"), (\.jq_set_error_cb, "jq_set_error_cb"),
            (\.jq_set_attr, "jq_set_attr"), (\.jq_compile, "jq_compile"), (\.jq_start, "jq_start"),
            (\.jq_next, "jq_next"), (\.jq_halt, "jq_halt"), (\.jq_halted, "jq_halted"),
            (\.jv_parse_sized, "jv_parse_sized"), (\.jv_dump_string, "jv_dump_string"), (\.jv_get_kind, "jv_get_kind"),
            (\.jv_copy, "jv_copy"), (\.jv_free, "jv_free"), (\.jv_invalid, "jv_invalid"),
            (\.jv_invalid_has_msg, "jv_invalid_has_msg"), (\.jv_invalid_get_msg, "jv_invalid_get_msg"),
            (\.jv_string_sized, "jv_string_sized"), (\.jv_string_value, "jv_string_value"),
            (\.jv_string_length_bytes, "jv_string_length_bytes"), (\.jv_array, "jv_array"),
            (\.jv_array_length, "jv_array_length"), (\.jv_array_get, "jv_array_get"), (\.jv_array_append, "jv_array_append"),
            (\.jv_object, "jv_object"), (\.jv_object_set, "jv_object_set"), (\.jv_object_iter, "jv_object_iter"),
            (\.jv_object_iter_next, "jv_object_iter_next"), (\.jv_object_iter_valid, "jv_object_iter_valid"),
            (\.jv_object_iter_key, "jv_object_iter_key"), (\.jv_object_iter_value, "jv_object_iter_value"),
            (\.jv_number, "jv_number"), (\.jv_number_value, "jv_number_value"), (\.jv_null, "jv_null"),
            (\.jv_true, "jv_true"), (\.jv_false, "jv_false"),
        ])

    let api: UnsafePointer<tributary_jq>
    init(api: UnsafePointer<tributary_jq>) { self.api = api }
}
