//! The facts cache's binary form of one file's [`FileFacts`] (without method bodies, which
//! the cache never holds): LEB128 varints, length-prefixed UTF-8 strings, one tag byte per
//! enum. Decoding checks every length and tag against what is left and answers `None` for
//! anything that does not read back whole: it never panics and never trusts a count.

use crate::index::facts::{
    ClassFacts, ConstRef, Diagnostic, DslCall, FileFacts, MethodFacts, MethodKind, Names,
    NamespaceKind, Param, ParamKind, Visibility,
};

/// Encodes `facts` (its path is the cache's key and is not stored; bodies are not stored).
pub fn encode(facts: &FileFacts, out: &mut Vec<u8>) {
    let mut w = Writer(out);
    w.opt_str(facts.skipped.as_deref());
    w.len(facts.diagnostics.len());
    for d in &facts.diagnostics {
        w.uint(u64::from(d.line));
        w.str(&d.message);
    }
    w.len(facts.diagnostic_count);
    w.len(facts.classes.len());
    for c in &facts.classes {
        w.str(&c.name);
        w.byte(match c.kind {
            NamespaceKind::Class => 0,
            NamespaceKind::Module => 1,
        });
        w.opt_str(c.superclass.as_deref());
        w.range(c.line_range);
        w.strs(&c.nesting);
        w.bool(c.concern);
        w.len(c.dsl.len());
        for call in &c.dsl {
            w.str(&call.name);
            w.strs(&call.args);
            w.len(call.options.len());
            for (key, values) in &call.options {
                w.str(key);
                w.strs(values);
            }
            w.uint(u64::from(call.line));
        }
    }
    w.len(facts.methods.len());
    for m in &facts.methods {
        w.str(&m.name);
        w.str(&m.owner);
        w.byte(match m.kind {
            MethodKind::Instance => 0,
            MethodKind::Singleton => 1,
        });
        w.byte(match m.visibility {
            Visibility::Public => 0,
            Visibility::Protected => 1,
            Visibility::Private => 2,
        });
        w.range(m.line_range);
        match m.scope {
            None => w.uint(0),
            Some(i) => w.uint((i as u64).saturating_add(1)),
        }
        w.byte(u8::from(m.dynamic) | (u8::from(m.conditional) << 1));
        w.0.extend_from_slice(&m.body_digest.to_le_bytes());
        w.len(m.params.len());
        for p in &m.params {
            w.str(&p.name);
            w.byte(param_tag(p.kind));
        }
        w.str(m.calls.as_buffer());
        w.len(m.constants.len());
        for c in &m.constants {
            w.str(&c.path);
            w.bool(c.absolute);
            w.str(c.methods.as_buffer());
            w.uint(u64::from(c.line));
        }
        w.str(m.ivars.as_buffer());
        w.str(m.receiver_calls.as_buffer());
    }
    w.uint(u64::from(facts.loc));
    w.uint(u64::from(facts.lines));
    w.bool(facts.utf8);
}

/// Decodes what [`encode`] wrote, with `path` as the facts' path; `None` unless `bytes`
/// are exactly one encoding.
pub fn decode(path: &str, bytes: &[u8]) -> Option<FileFacts> {
    let mut r = Reader::new(bytes);
    let skipped = r.opt_str()?;
    let n = r.len()?;
    let mut diagnostics = Vec::with_capacity(n);
    for _ in 0..n {
        diagnostics.push(Diagnostic {
            line: r.u32()?,
            message: r.str()?.to_string(),
        });
    }
    let diagnostic_count = r.count()?;
    let n = r.len()?;
    let mut classes = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.str()?.to_string();
        let kind = match r.byte()? {
            0 => NamespaceKind::Class,
            1 => NamespaceKind::Module,
            _ => return None,
        };
        let superclass = r.opt_str()?;
        let line_range = r.range()?;
        let nesting = r.strs()?;
        let concern = r.bool()?;
        let calls = r.len()?;
        let mut dsl = Vec::with_capacity(calls);
        for _ in 0..calls {
            let name = r.str()?.to_string();
            let args = r.strs()?;
            let options_len = r.len()?;
            let mut options = Vec::with_capacity(options_len);
            for _ in 0..options_len {
                let key = r.str()?.to_string();
                options.push((key, r.strs()?));
            }
            dsl.push(DslCall {
                name,
                args,
                options,
                line: r.u32()?,
            });
        }
        classes.push(ClassFacts {
            name,
            kind,
            superclass,
            line_range,
            nesting,
            concern,
            dsl,
        });
    }
    let n = r.len()?;
    let mut methods = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.str()?.to_string();
        let owner = r.str()?.to_string();
        let kind = match r.byte()? {
            0 => MethodKind::Instance,
            1 => MethodKind::Singleton,
            _ => return None,
        };
        let visibility = match r.byte()? {
            0 => Visibility::Public,
            1 => Visibility::Protected,
            2 => Visibility::Private,
            _ => return None,
        };
        let line_range = r.range()?;
        let scope = match r.uint()? {
            0 => None,
            i => Some(usize::try_from(i - 1).ok()?),
        };
        if scope.is_some_and(|i| i >= classes.len()) {
            return None;
        }
        let (dynamic, conditional) = match r.byte()? {
            b @ 0..=3 => (b & 1 != 0, b & 2 != 0),
            _ => return None,
        };
        let body_digest = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let params_len = r.len()?;
        let mut params = Vec::with_capacity(params_len);
        for _ in 0..params_len {
            let name = r.str()?.to_string();
            let kind = param_kind(r.byte()?)?;
            params.push(Param { name, kind });
        }
        let calls = r.names()?;
        let constants_len = r.len()?;
        let mut constants = Vec::with_capacity(constants_len);
        for _ in 0..constants_len {
            constants.push(ConstRef {
                path: r.str()?.to_string(),
                absolute: r.bool()?,
                methods: r.names()?,
                line: r.u32()?,
            });
        }
        let ivars = r.names()?;
        let receiver_calls = r.names()?;
        methods.push(MethodFacts {
            name,
            owner,
            kind,
            visibility,
            line_range,
            scope,
            dynamic,
            conditional,
            body_digest,
            params,
            calls,
            constants,
            ivars,
            receiver_calls,
            body: None,
            param_defaults: Vec::new(),
        });
    }
    let loc = r.u32()?;
    let lines = r.u32()?;
    let utf8 = r.bool()?;
    if !r.at_end() {
        return None;
    }
    Some(FileFacts {
        path: path.to_string(),
        skipped,
        diagnostics,
        diagnostic_count,
        classes,
        methods,
        loc,
        lines,
        utf8,
    })
}

fn param_tag(kind: ParamKind) -> u8 {
    match kind {
        ParamKind::Required => 0,
        ParamKind::Optional => 1,
        ParamKind::Rest => 2,
        ParamKind::Keyword => 3,
        ParamKind::OptionalKeyword => 4,
        ParamKind::KeywordRest => 5,
        ParamKind::Block => 6,
        ParamKind::Forward => 7,
    }
}

fn param_kind(tag: u8) -> Option<ParamKind> {
    Some(match tag {
        0 => ParamKind::Required,
        1 => ParamKind::Optional,
        2 => ParamKind::Rest,
        3 => ParamKind::Keyword,
        4 => ParamKind::OptionalKeyword,
        5 => ParamKind::KeywordRest,
        6 => ParamKind::Block,
        7 => ParamKind::Forward,
        _ => return None,
    })
}

/// Appends values to a buffer.
pub(crate) struct Writer<'a>(pub(crate) &'a mut Vec<u8>);

impl Writer<'_> {
    /// An unsigned LEB128 varint.
    pub(crate) fn uint(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(low);
                return;
            }
            self.0.push(low | 0x80);
        }
    }

    pub(crate) fn len(&mut self, n: usize) {
        self.uint(n as u64);
    }

    pub(crate) fn byte(&mut self, b: u8) {
        self.0.push(b);
    }

    pub(crate) fn bool(&mut self, b: bool) {
        self.0.push(u8::from(b));
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.len(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    pub(crate) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.byte(0),
            Some(s) => {
                self.byte(1);
                self.str(s);
            }
        }
    }

    pub(crate) fn strs(&mut self, items: &[String]) {
        self.len(items.len());
        for s in items {
            self.str(s);
        }
    }

    pub(crate) fn range(&mut self, (a, b): (u32, u32)) {
        self.uint(u64::from(a));
        self.uint(u64::from(b));
    }
}

/// Reads values back, each checked against what is left.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.rest.is_empty()
    }

    /// How many bytes are left.
    pub(crate) fn rest_len(&self) -> usize {
        self.rest.len()
    }

    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.rest.len() {
            return None;
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Some(head)
    }

    pub(crate) fn byte(&mut self) -> Option<u8> {
        let (&b, tail) = self.rest.split_first()?;
        self.rest = tail;
        Some(b)
    }

    pub(crate) fn bool(&mut self) -> Option<bool> {
        match self.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// An unsigned LEB128 varint of at most ten bytes that fits in 64 bits.
    pub(crate) fn uint(&mut self) -> Option<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let part = u64::from(b & 0x7f);
            if shift == 63 && part > 1 {
                return None;
            }
            v |= part << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.uint()?).ok()
    }

    /// A count, as a `usize`.
    pub(crate) fn count(&mut self) -> Option<usize> {
        usize::try_from(self.uint()?).ok()
    }

    /// The length of a list whose every item takes at least one byte: never more than
    /// what is left, so a garbage count cannot ask for a huge allocation.
    pub(crate) fn len(&mut self) -> Option<usize> {
        let n = self.count()?;
        (n <= self.rest.len()).then_some(n)
    }

    pub(crate) fn str(&mut self) -> Option<&'a str> {
        let n = self.len()?;
        std::str::from_utf8(self.take(n)?).ok()
    }

    pub(crate) fn opt_str(&mut self) -> Option<Option<String>> {
        match self.byte()? {
            0 => Some(None),
            1 => Some(Some(self.str()?.to_string())),
            _ => None,
        }
    }

    pub(crate) fn strs(&mut self) -> Option<Vec<String>> {
        let n = self.len()?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.str()?.to_string());
        }
        Some(items)
    }

    fn names(&mut self) -> Option<Names> {
        Names::from_buffer_checked(self.str()?)
    }

    pub(crate) fn range(&mut self) -> Option<(u32, u32)> {
        Some((self.u32()?, self.u32()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{extract_with, ExtractOptions};

    const MODEL: &str = r#"
class Order < ApplicationRecord
  include Payable
  belongs_to :customer
  has_many :line_items, dependent: :destroy
  enum status: { pending: 0, paid: 1 }
  before_save :normalize, if: :draft?
  validates :total, presence: true

  scope :recent, -> { where("created_at > ?", 1.week.ago) }

  def self.for_customer(customer, limit: 10, **opts, &block)
    where(customer: customer).limit(limit)
  end

  def total(currency = "EUR", *rest)
    line_items.sum(&:amount) + Billing::Tax.rate_for(@region).to_f
  end

  def pay!(gateway)
    return false if paid?
    gateway.charge(total)
    ::Notifier.deliver(self)
    update!(status: :paid)
  end

  private

  def normalize(...)
    self.total = total.round(2)
  end
end
"#;

    const SERVICE: &str = r#"
module Billing
  module Payments
    class ChargeService
      def initialize(order, gateway: Gateway.new)
        @order = order
        @gateway = gateway
      end

      def call
        raise ArgumentError, "no order" unless @order
        @gateway.charge(@order.total)
      rescue Gateway::Error => e
        Rails.logger.error(e.message)
        false
      end

      protected def audit = AuditLog.create!(order: @order)
    end
  end
end
"#;

    const CONCERN: &str = r#"
module Payable
  extend ActiveSupport::Concern

  included do
    after_commit :sync, on: :create
  end

  class_methods do
    def payable? = true
  end

  def sync
    PaymentSync.perform_later(id)
  end
end

class Admin::ReportsController < ApplicationController
  before_action :authenticate_admin!, only: %i[index show]
  def index; @reports = Report.all; end
end
"#;

    /// Bad syntax, a non-UTF-8 byte, a top-level def and nothing else.
    const BROKEN: &[u8] = b"def top(a, b = 1)\n  a + \xff\nend\nclass Foo\n  def bar(\nend\n";

    fn samples() -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("app/models/order.rb", MODEL.as_bytes().to_vec()),
            (
                "app/services/billing/payments/charge_service.rb",
                SERVICE.as_bytes().to_vec(),
            ),
            (
                "app/models/concerns/payable.rb",
                CONCERN.as_bytes().to_vec(),
            ),
            ("lib/broken.rb", BROKEN.to_vec()),
            ("empty.rb", Vec::new()),
        ]
    }

    #[test]
    fn facts_read_back_exactly_with_and_without_digests() {
        for digests in [true, false] {
            for (path, source) in samples() {
                let facts = extract_with(
                    path,
                    &source,
                    &ExtractOptions {
                        digests,
                        ..ExtractOptions::default()
                    },
                );
                let mut bytes = Vec::new();
                encode(&facts, &mut bytes);
                assert_eq!(decode(path, &bytes), Some(facts), "{path}");
            }
        }
    }

    #[test]
    fn the_samples_hold_what_the_codec_must_carry() {
        let facts = extract_with(
            "app/models/order.rb",
            MODEL.as_bytes(),
            &ExtractOptions::default(),
        );
        assert!(!facts.classes.first().unwrap().dsl.is_empty());
        assert!(facts.methods.iter().any(|m| !m.constants.is_empty()));
        assert!(facts.methods.iter().any(|m| !m.receiver_calls.is_empty()));
        assert!(facts.methods.iter().any(|m| m.body_digest != 0));
        let broken = extract_with("lib/broken.rb", BROKEN, &ExtractOptions::default());
        assert!(broken.diagnostic_count > 0 && !broken.utf8);
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_reads_as_none_or_whole_facts() {
        let (path, source) = samples().into_iter().next().unwrap();
        let facts = extract_with(path, &source, &ExtractOptions::default());
        let mut bytes = Vec::new();
        encode(&facts, &mut bytes);
        for cut in 0..bytes.len() {
            assert_eq!(
                decode(path, bytes.get(..cut).unwrap()),
                None,
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(path, &longer), None);
        // A flipped byte either fails to read or reads as other facts, never panics (the
        // file's checksum is what catches it).
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            *bad.get_mut(i).unwrap() ^= 0xff;
            let _ = decode(path, &bad);
        }
    }

    #[test]
    fn garbage_counts_do_not_allocate_or_panic() {
        let mut bytes = Vec::new();
        Writer(&mut bytes).byte(0);
        Writer(&mut bytes).uint(u64::MAX);
        assert_eq!(decode("x.rb", &bytes), None);
        assert_eq!(decode("x.rb", &[0xff; 12]), None);
        let mut r = Reader::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02]);
        assert_eq!(r.uint(), None);
        let mut r = Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert_eq!(r.uint(), Some(u64::MAX));
    }
}
