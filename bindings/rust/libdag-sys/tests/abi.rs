//! Checks that the declarations in this crate match the libdag that is linked:
//! versions, the options structs' sizes (which libdag checks exactly) and the
//! function table's layout.

use libdag_sys::*;
use std::ffi::CStr;
use std::mem::size_of;
use std::ptr;

#[test]
fn header_and_library_versions_match() {
    let runtime = unsafe { dag_version() };
    assert_eq!(runtime, DAG_VERSION_NUMBER);
    let text = unsafe { CStr::from_ptr(dag_version_string()) };
    assert_eq!(text.to_str().unwrap(), DAG_VERSION_STRING);
}

#[test]
fn validate_options_have_the_library_size() {
    let mut opts = dag_validate_options {
        size: 0,
        single_root: 0,
    };
    let mut err = ptr::null_mut();
    let status = unsafe {
        dag_validate_options_init(&mut opts, size_of::<dag_validate_options>(), &mut err)
    };
    assert_eq!(status, DAG_OK);
    assert!(err.is_null());
    assert_eq!(opts.size, size_of::<dag_validate_options>());
    assert_ne!(opts.single_root, 0, "single-root rule is on by default");

    // A size below the first layout is refused with a message, and the
    // struct left alone.
    let status = unsafe { dag_validate_options_init(&mut opts, 4, &mut err) };
    assert_eq!(status, DAG_E_INVALID_ARGUMENT);
    assert!(!err.is_null());
    assert_eq!(unsafe { dag_error_status(err) }, DAG_E_INVALID_ARGUMENT);
    let message = unsafe { CStr::from_ptr(dag_error_message(err)) };
    assert!(message
        .to_str()
        .unwrap()
        .starts_with("dag_validate_options_init"));
    unsafe { dag_error_free(err) };
}

#[test]
fn walk_options_have_the_library_size_and_defaults() {
    let mut opts = std::mem::MaybeUninit::<dag_walk_options>::zeroed();
    let status = unsafe {
        dag_walk_options_init(
            opts.as_mut_ptr(),
            size_of::<dag_walk_options>(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, DAG_OK);
    let opts = unsafe { opts.assume_init() };
    assert_eq!(opts.size, size_of::<dag_walk_options>());
    assert_eq!(opts.parallelism, 10);
    assert_eq!(opts.threads, 0);
    assert_eq!(opts.reverse, 0);
    assert_eq!(opts.failure_policy, DAG_FAILURE_CONTINUE);
    assert_ne!(opts.timestamps, 0);
    assert!(opts.always_run.is_null());
    assert_eq!(opts.always_run_count, 0);
    assert!(opts.observer.is_none());
    assert!(opts.thread_start.is_none() && opts.thread_exit.is_none());
    assert!(opts.pool_names.is_null() && opts.pool_need_vertices.is_null());
    assert_eq!((opts.pool_count, opts.pool_need_count), (0, 0));
    assert_eq!(
        (opts.retries, opts.retry_delay_ms, opts.retry_doubling),
        (0, 0, 0)
    );
    assert_eq!((opts.priority, opts.weight_count), (DAG_PRIORITY_NONE, 0));
}

#[test]
fn function_table_matches_the_exported_symbols() {
    let table = unsafe { dag_api(DAG_API_ABI) };
    assert!(!table.is_null());
    let table = unsafe { &*table };
    // Equal sizes mean this struct has exactly the library's fields; the
    // spot checks below (first, middle, last) mean they are in its order.
    assert_eq!(table.size, size_of::<dag_api_table>());
    assert_eq!(table.version, DAG_VERSION_NUMBER);
    assert_eq!(
        table.version_number.map(|f| f as usize),
        Some(dag_version as *const () as usize)
    );
    assert_eq!(
        table.new_graph.map(|f| f as usize),
        Some(dag_new as *const () as usize)
    );
    assert_eq!(
        table.connect.map(|f| f as usize),
        Some(dag_connect as *const () as usize)
    );
    assert_eq!(
        table.walk.map(|f| f as usize),
        Some(dag_walk as *const () as usize)
    );
    assert_eq!(
        table.walk_report_ran.map(|f| f as usize),
        Some(dag_walk_report_ran as *const () as usize)
    );
    assert_eq!(
        table.export_graph.map(|f| f as usize),
        Some(dag_export_graph as *const () as usize)
    );
    assert_eq!(
        table.format_name.map(|f| f as usize),
        Some(dag_format_name as *const () as usize)
    );
    assert_eq!(
        table.walk_fail.map(|f| f as usize),
        Some(dag_walk_fail as *const () as usize)
    );
    assert_eq!(
        table.walk_report_read.map(|f| f as usize),
        Some(dag_walk_report_read as *const () as usize)
    );
    assert_eq!(
        table.select.map(|f| f as usize),
        Some(dag_select as *const () as usize)
    );
    assert_eq!(
        table.walk_report_attempt_message.map(|f| f as usize),
        Some(dag_walk_report_attempt_message as *const () as usize)
    );
    assert_eq!(
        table.add_vertices.map(|f| f as usize),
        Some(dag_add_vertices as *const () as usize)
    );
    assert_eq!(
        table.find_vertices.map(|f| f as usize),
        Some(dag_find_vertices as *const () as usize)
    );
    assert!(unsafe { dag_api(DAG_API_ABI + 1) }.is_null());
}

#[test]
fn every_status_has_its_own_description() {
    let codes = [
        DAG_OK,
        DAG_E_NULL_ARGUMENT,
        DAG_E_INVALID_ARGUMENT,
        DAG_E_NOMEM,
        DAG_E_UNKNOWN_VERTEX,
        DAG_E_NOT_FOUND,
        DAG_E_DUPLICATE_NAME,
        DAG_E_BAD_UTF8,
        DAG_E_CYCLE,
        DAG_E_BUSY,
        DAG_E_NO_ROOT,
        DAG_E_MULTIPLE_ROOTS,
        DAG_E_INVALID_GRAPH,
        DAG_E_STATE,
        DAG_E_CANCELLED,
        DAG_E_PARSE,
        DAG_E_IO,
        DAG_E_INTERNAL,
        DAG_E_WALK_FAILED,
        DAG_E_CALLBACK,
        DAG_E_TIMEOUT,
    ];
    let mut seen = std::collections::HashSet::new();
    for code in codes {
        let text = unsafe { CStr::from_ptr(dag_status_string(code)) }
            .to_str()
            .unwrap();
        assert_ne!(text, "unrecognised status", "code {}", code);
        assert!(
            seen.insert(text),
            "code {} shares its description {:?}",
            code,
            text
        );
    }
    let unknown = unsafe { CStr::from_ptr(dag_status_string(-1000)) };
    assert_eq!(unknown.to_str().unwrap(), "unrecognised status");
}

#[test]
fn format_names() {
    let name = |f| {
        unsafe { CStr::from_ptr(dag_format_name(f)) }
            .to_str()
            .unwrap()
    };
    assert_eq!(name(DAG_FORMAT_DOT), "dot");
    assert_eq!(name(DAG_FORMAT_JSON), "json");
    assert_eq!(name(99), "unknown");
}
