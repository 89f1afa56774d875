//! The editor's open documents: their text as the editor holds it (saved or not) and version.

use crate::convert::{offset, Encoding};
use lsp_types as lsp;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

pub struct Document {
    /// The file the document is, when its URI is a `file:` URI: canonical when the file
    /// exists (the walk finds catalog files under canonical roots), else as the URI says.
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: Arc<str>,
}

#[derive(Default)]
pub struct Documents {
    by_uri: HashMap<String, Document>,
}

impl Documents {
    pub fn open(&mut self, uri: String, version: i32, text: String) -> Option<PathBuf> {
        let path = crate::uri::to_path(&uri).map(|p| std::fs::canonicalize(&p).unwrap_or(p));
        self.by_uri.insert(
            uri,
            Document {
                path: path.clone(),
                version,
                text: text.into(),
            },
        );
        path
    }

    /// Applies an edit's changes in order (each range is in the text the previous one left).
    /// Returns the document's path; `None` for a document that is not open.
    pub fn change(
        &mut self,
        uri: &str,
        version: i32,
        changes: Vec<lsp::TextDocumentContentChangeEvent>,
        enc: Encoding,
    ) -> Option<Option<PathBuf>> {
        let doc = self.by_uri.get_mut(uri)?;
        let mut text = String::from(&*doc.text);
        for change in changes {
            match change {
                lsp::TextDocumentContentChangeEvent::TextDocumentContentChangeWholeDocument(
                    whole,
                ) => text = whole.text,
                lsp::TextDocumentContentChangeEvent::TextDocumentContentChangePartial(part) => {
                    let start = offset(&text, part.range.start, enc);
                    let end = offset(&text, part.range.end, enc).max(start);
                    text.replace_range(start..end, &part.text);
                }
            }
        }
        doc.text = text.into();
        doc.version = version;
        Some(doc.path.clone())
    }

    pub fn close(&mut self, uri: &str) -> Option<Document> {
        self.by_uri.remove(uri)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Document)> {
        self.by_uri.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut docs = Documents::default();
        docs.open("untitled:1".into(), 1, "name: é1\nx: 2\n".into());
        let edit = |l1, c1, l2, c2, t: &str| {
            lsp::TextDocumentContentChangeEvent::TextDocumentContentChangePartial(
                lsp::TextDocumentContentChangePartial::new(
                    lsp::Range::new(lsp::Position::new(l1, c1), lsp::Position::new(l2, c2)),
                    None,
                    t.into(),
                ),
            )
        };
        docs.change(
            "untitled:1",
            2,
            vec![edit(0, 7, 0, 8, "2"), edit(1, 3, 1, 4, "3\ny: 4")],
            Encoding::Utf16,
        );
        let (_, doc) = docs.iter().next().unwrap();
        assert_eq!(&*doc.text, "name: é2\nx: 3\ny: 4\n");
        assert_eq!(doc.version, 2);
    }
}
