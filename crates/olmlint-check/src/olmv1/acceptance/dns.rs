//! Kubernetes' name checks (`k8s.io/apimachinery/pkg/util/validation`, v0.36, the version
//! operator-controller v1.11 pins), with their messages.

const SUBDOMAIN_MAX: usize = 253;
const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const SUBDOMAIN_FMT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const LABEL_1035_MAX: usize = 63;
const LABEL_1035_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_1035_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

/// `validation.RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{fmt}')"));
    out
}

/// `validation.MaxLenError`.
fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// An RFC 1123 label as the subdomain regex reads one: lowercase alphanumerics and '-',
/// alphanumeric at both ends.
fn label_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    b.first().is_some_and(alnum)
        && b.last().is_some_and(alnum)
        && b.iter().all(|c| alnum(c) || *c == b'-')
}

/// `validation.IsDNS1123Subdomain`: its messages for `value`, none when it is one.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > SUBDOMAIN_MAX {
        errs.push(max_len_error(SUBDOMAIN_MAX));
    }
    if !value.split('.').all(label_ok) {
        errs.push(regex_error(SUBDOMAIN_MSG, SUBDOMAIN_FMT, &["example.com"]));
    }
    errs
}

/// `validation.IsDNS1035Label`: its messages for `value`, none when it is one.
pub fn dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_1035_MAX {
        errs.push(max_len_error(LABEL_1035_MAX));
    }
    if !(label_ok(value) && value.as_bytes().first().is_some_and(u8::is_ascii_lowercase)) {
        errs.push(regex_error(
            LABEL_1035_MSG,
            LABEL_1035_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `validation.IsDNS1123Subdomain`'s messages, sorted as the bundle validator sorts them
/// (`slices.Sort`) and joined with `sep`.
pub fn subdomain_errors_joined(value: &str, sep: &str) -> Option<String> {
    let mut errs = dns1123_subdomain(value);
    if errs.is_empty() {
        return None;
    }
    errs.sort();
    Some(errs.join(sep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdomains() {
        for ok in ["a", "a.b", "a-b.c0", "0", "example.com"] {
            assert!(dns1123_subdomain(ok).is_empty(), "{ok}");
        }
        for bad in ["", "-a", "a-", "A", "a..b", ".a", "a_b", "a."] {
            assert_eq!(dns1123_subdomain(bad).len(), 1, "{bad}");
        }
        let long = format!("{}-", "a".repeat(253));
        assert_eq!(
            subdomain_errors_joined(&long, ", ").unwrap(),
            format!(
                "{}, must be no more than 253 characters",
                regex_error(SUBDOMAIN_MSG, SUBDOMAIN_FMT, &["example.com"])
            )
        );
    }

    #[test]
    fn dns1035() {
        assert!(dns1035_label("a-1").is_empty());
        assert_eq!(dns1035_label("1a"), vec!["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')".to_string()]);
        assert_eq!(dns1035_label(&"a".repeat(64)).len(), 1);
    }
}
