#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| olmlint_fuzz::targets::templates::run(data));
