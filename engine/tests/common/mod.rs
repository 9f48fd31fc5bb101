//! Helpers shared by the integration tests.
#![allow(dead_code)]

/// Every tag in `html` as (name, attributes). The engine escapes `<` in text, so each `<` that
/// starts a letter or `/` begins a tag.
pub fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        rest = &rest[lt + 1..];
        let Some(gt) = rest.find('>') else { break };
        let inner = &rest[..gt];
        rest = &rest[gt + 1..];
        if inner.starts_with('/') || inner.starts_with('!') {
            continue;
        }
        let name: String = inner
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut a = &inner[name.len()..];
        loop {
            a = a.trim_start().trim_start_matches('/');
            if a.is_empty() {
                break;
            }
            let key: String = a
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '=' && *c != '>')
                .collect();
            a = &a[key.len()..];
            let mut value = String::new();
            if let Some(r) = a.strip_prefix("=\"") {
                let end = r.find('"').unwrap_or(r.len());
                value = r[..end].to_string();
                a = &r[(end + 1).min(r.len())..];
            }
            if key.is_empty() {
                break;
            }
            attrs.push((key.to_ascii_lowercase(), value));
        }
        out.push((name, attrs));
    }
    out
}
