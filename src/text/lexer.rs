//! The tokenizer of Godot's text form (`VariantParser::get_token`), with the engine's
//! own number conversions, so that every number reads to the engine's bits.

use crate::{Color, Dialect};

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    CurlyOpen,
    CurlyClose,
    BracketOpen,
    BracketClose,
    ParenOpen,
    ParenClose,
    Colon,
    Comma,
    Period,
    Equal,
    Ident(String),
    Str(String),
    StringName(String),
    Int(i64),
    Float(f64),
    Color(Color),
    Eof,
}

impl Tok {
    /// The engine's name for the token, as its error messages quote it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Tok::CurlyOpen => "'{'",
            Tok::CurlyClose => "'}'",
            Tok::BracketOpen => "'['",
            Tok::BracketClose => "']'",
            Tok::ParenOpen => "'('",
            Tok::ParenClose => "')'",
            Tok::Colon => "':'",
            Tok::Comma => "','",
            Tok::Period => "'.'",
            Tok::Equal => "'='",
            Tok::Ident(_) => "identifier",
            Tok::Str(_) => "string",
            Tok::StringName(_) => "string_name",
            Tok::Int(_) | Tok::Float(_) => "number",
            Tok::Color(_) => "color",
            Tok::Eof => "EOF",
        }
    }
}

/// A syntax error: the engine's message and where (byte offset) it was found.
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) msg: String,
    pub(crate) at: usize,
}

pub(crate) type Res<T> = std::result::Result<T, Fail>;

pub(crate) struct Lexer<'a> {
    src: &'a str,
    pub(crate) pos: usize,
    pub(crate) g3: bool,
    /// Where the last token started.
    pub(crate) start: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str, dialect: Dialect) -> Self {
        Lexer {
            src,
            pos: 0,
            g3: dialect != Dialect::Godot4,
            start: 0,
        }
    }

    pub(crate) fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    pub(crate) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    pub(crate) fn fail<T>(&self, msg: impl Into<String>) -> Res<T> {
        Err(Fail {
            msg: msg.into(),
            at: self.start,
        })
    }

    /// Whether the input is used up (the engine's `is_eof` after a read).
    /// At the end of the text, or at a NUL, which ends the engine's text (its strings
    /// stop there).
    pub(crate) fn at_end(&self) -> bool {
        !matches!(self.src.as_bytes().get(self.pos), Some(&b) if b != 0)
    }

    pub(crate) fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    pub(crate) fn next(&mut self) -> Res<Tok> {
        loop {
            self.start = self.pos;
            let Some(c) = self.bump() else {
                return Ok(Tok::Eof);
            };
            return Ok(match c {
                '\0' => Tok::Eof,
                '{' => Tok::CurlyOpen,
                '}' => Tok::CurlyClose,
                '[' => Tok::BracketOpen,
                ']' => Tok::BracketClose,
                '(' => Tok::ParenOpen,
                ')' => Tok::ParenClose,
                ':' => Tok::Colon,
                ',' => Tok::Comma,
                '.' => Tok::Period,
                '=' => Tok::Equal,
                ';' => {
                    while let Some(c) = self.bump() {
                        if c == '\n' {
                            break;
                        }
                    }
                    continue;
                }
                '#' => return self.color(),
                '&' | '@' if !self.g3 => {
                    if self.peek() != Some('"') {
                        return self.fail(format!("Expected '\"' after '{c}'"));
                    }
                    self.bump();
                    Tok::StringName(self.string()?)
                }
                '"' => Tok::Str(self.string()?),
                c if (c as u32) <= 32 => continue,
                c => return self.number_or_ident(c),
            });
        }
    }

    /// `#` and hex digits: `Color::html` of the dialect (Godot 3 reads 8 digits as
    /// ARGB, Godot 4 as RGBA). Input that ends inside it is the end of input.
    fn color(&mut self) -> Res<Tok> {
        let begin = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            self.bump();
        }
        if self.at_end() {
            return Ok(Tok::Eof);
        }
        let hex = &self.src[begin..self.pos];
        let digit = |i: usize| u32::from_str_radix(&hex[i..i + 1], 16).unwrap_or(0);
        let pair = |i: usize| u32::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0);
        let c = match (hex.len(), self.g3) {
            (3 | 4, true) => {
                let v = |i| ((digit(i) * 17) as f64 / 255.0) as f32;
                if hex.len() == 4 {
                    Color::new(v(1), v(2), v(3), v(0))
                } else {
                    Color::new(v(0), v(1), v(2), 1.0)
                }
            }
            (3 | 4, false) => {
                let v = |i| digit(i) as f32 / 15.0;
                let a = if hex.len() == 4 { v(3) } else { 1.0 };
                Color::new(v(0), v(1), v(2), a)
            }
            (6, g3) => {
                let v = |i| (pair(i) as f64 / 255.0) as f32;
                let v4 = |i| pair(i) as f32 / 255.0;
                if g3 {
                    Color::new(v(0), v(2), v(4), 1.0)
                } else {
                    Color::new(v4(0), v4(2), v4(4), 1.0)
                }
            }
            (8, true) => {
                let v = |i| (pair(i) as f64 / 255.0) as f32;
                Color::new(v(2), v(4), v(6), v(0))
            }
            (8, false) => {
                let v = |i| pair(i) as f32 / 255.0;
                Color::new(v(0), v(2), v(4), v(6))
            }
            _ => Color::new(0.0, 0.0, 0.0, 1.0),
        };
        Ok(Tok::Color(c))
    }

    /// A string body after its opening quote, with the engine's escapes.
    fn string(&mut self) -> Res<String> {
        let mut out = String::new();
        let mut lead: Option<u32> = None;
        let unterminated = if self.g3 {
            "Unterminated String"
        } else {
            "Unterminated string"
        };
        loop {
            let Some(c) = self.bump().filter(|c| *c != '\0') else {
                return self.fail(unterminated);
            };
            if c == '"' {
                if lead.is_some() {
                    return self.fail("Invalid UTF-16 sequence in string, unpaired lead surrogate");
                }
                return Ok(out);
            }
            if c != '\\' {
                if lead.is_some() {
                    return self.fail("Invalid UTF-16 sequence in string, unpaired lead surrogate");
                }
                out.push(c);
                continue;
            }
            let Some(e) = self.bump().filter(|c| *c != '\0') else {
                return self.fail(unterminated);
            };
            let code = match e {
                'b' => 8,
                't' => 9,
                'n' => 10,
                'f' => 12,
                'r' => 13,
                'u' => self.hex_escape(4, unterminated)?,
                'U' if !self.g3 => self.hex_escape(6, unterminated)?,
                other => other as u32,
            };
            if self.g3 && (0xD800..=0xDFFF).contains(&code) {
                // Godot 3 keeps each `\u` as one UTF-16 unit, a pair as two surrogates.
                return self.fail("Godot 3 reads \\u escapes of surrogates as lone surrogates, which a Rust String cannot hold");
            }
            match (lead.take(), code) {
                (None, 0xD800..=0xDBFF) => lead = Some(code),
                (Some(hi), 0xDC00..=0xDFFF) => {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (code - 0xDC00);
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                (Some(_), _) => {
                    return self.fail("Invalid UTF-16 sequence in string, unpaired lead surrogate")
                }
                (None, 0xDC00..=0xDFFF) => {
                    return self.fail("Invalid UTF-16 sequence in string, unpaired trail surrogate")
                }
                // Godot 4's `append_utf32` stores NUL as U+FFFD; Godot 3 keeps it.
                (None, 0) if !self.g3 => out.push('\u{FFFD}'),
                (None, c) => out.push(char::from_u32(c).unwrap_or('\u{FFFD}')),
            }
        }
    }

    fn hex_escape(&mut self, digits: usize, unterminated: &str) -> Res<u32> {
        let mut v = 0u32;
        for _ in 0..digits {
            match self.bump() {
                None | Some('\0') => return self.fail(unterminated),
                Some(c) => match c.to_digit(16) {
                    Some(d) => v = (v << 4) | d,
                    None => return self.fail("Malformed hex constant in string"),
                },
            }
        }
        Ok(v)
    }

    fn number_or_ident(&mut self, first: char) -> Res<Tok> {
        let begin = self.start;
        let unexpected = if self.g3 {
            "Unexpected character."
        } else {
            "Unexpected character"
        };
        let mut c = Some(first);
        if first == '-' {
            c = self.peek();
            if self.g3 {
                // Godot 3 takes every '-' as a number, whatever follows.
                return self.number(begin, true);
            }
            self.bump();
        }
        match c {
            Some(d) if d.is_ascii_digit() => self.number(begin, first == '-'),
            Some(a) if a.is_ascii_alphabetic() || a == '_' => {
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.bump();
                }
                Ok(Tok::Ident(self.src[begin..self.pos].to_owned()))
            }
            _ => self.fail(unexpected),
        }
    }

    /// The engine's number state machine, from `begin` (which holds the first digit
    /// or the sign, already consumed).
    fn number(&mut self, begin: usize, signed: bool) -> Res<Tok> {
        #[derive(PartialEq)]
        enum S {
            Int,
            Dec,
            Exp,
        }
        if !signed {
            self.pos = begin;
        }
        let mut state = S::Int;
        let (mut is_float, mut exp_sign, mut exp_beg) = (false, false, false);
        while let Some(c) = self.peek() {
            let e = c == 'e' || (c == 'E' && !self.g3);
            match state {
                S::Int if c.is_ascii_digit() => {}
                S::Int if c == '.' => {
                    state = S::Dec;
                    is_float = true;
                }
                S::Int | S::Dec if e => {
                    state = S::Exp;
                    is_float = true;
                }
                S::Dec if c.is_ascii_digit() => {}
                S::Exp if c.is_ascii_digit() => exp_beg = true,
                S::Exp if (c == '+' || c == '-') && !exp_sign && !exp_beg => exp_sign = true,
                _ => break,
            }
            self.bump();
        }
        let text = &self.src[begin..self.pos];
        Ok(if is_float {
            Tok::Float(strtod(text))
        } else {
            Tok::Int(to_int(text))
        })
    }
}

/// `String::to_int`: decimal, clamped to the i64 range past 19 digits.
pub(crate) fn to_int(s: &str) -> i64 {
    let mut v: i64 = 0;
    let mut sign = 1i64;
    let mut digits = false;
    for c in s.chars() {
        match c {
            '0'..='9' => {
                digits = true;
                if v > i64::MAX / 10 {
                    return if sign == 1 { i64::MAX } else { i64::MIN };
                }
                v = v.wrapping_mul(10).wrapping_add(i64::from(c as u8 - b'0'));
            }
            '-' if !digits => sign = -1,
            '+' if !digits => {}
            _ if digits => break,
            _ => {}
        }
    }
    sign.wrapping_mul(v)
}

/// Godot's `built_in_strtod`: not correctly rounded, so ported as it is (at most 18
/// mantissa digits, powers of ten by repeated products).
pub(crate) fn strtod(s: &str) -> f64 {
    const POWERS: [f64; 9] = [1e1, 1e2, 1e4, 1e8, 1e16, 1e32, 1e64, 1e128, 1e256];
    let b = s.trim_start_matches([' ', '\t', '\n']).as_bytes();
    let mut i = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let mant_start = i;
    let mut dec_pt = None;
    while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'.' && dec_pt.is_none())) {
        if b[i] == b'.' {
            dec_pt = Some(i - mant_start);
        }
        i += 1;
    }
    let mut mant_size = i - mant_start;
    let dec_pt = dec_pt.unwrap_or(mant_size) as i64;
    if (dec_pt as usize) < mant_size {
        mant_size -= 1;
    }
    let frac_exp = if mant_size > 18 {
        mant_size = 18;
        dec_pt - 18
    } else {
        dec_pt - mant_size as i64
    } as i32;
    if mant_size == 0 {
        return if negative { -0.0 } else { 0.0 };
    }
    let digits: Vec<u64> = b[mant_start..]
        .iter()
        .filter(|c| c.is_ascii_digit())
        .take(mant_size)
        .map(|c| u64::from(c - b'0'))
        .collect();
    let split = mant_size.saturating_sub(9);
    let frac1 = digits[..split].iter().fold(0u64, |a, d| a * 10 + d);
    let frac2 = digits[split..].iter().fold(0u64, |a, d| a * 10 + d);
    let mut fraction = 1.0e9 * frac1 as f64 + frac2 as f64;
    let mut exp = frac_exp;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        let exp_negative = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        if !b.get(j).is_some_and(u8::is_ascii_digit) {
            return if negative { -fraction } else { fraction };
        }
        // The engine's exponent is a C `int`: it wraps (`1e4294967297` is 10.0).
        let mut e: i32 = 0;
        while let Some(d) = b.get(j).filter(|d| d.is_ascii_digit()) {
            e = e.wrapping_mul(10).wrapping_add(i32::from(d - b'0'));
            j += 1;
        }
        exp = if exp_negative {
            frac_exp.wrapping_sub(e)
        } else {
            frac_exp.wrapping_add(e)
        };
    }
    let exp_negative = exp < 0;
    let mut exp = exp.unsigned_abs().min(511);
    let mut dbl_exp = 1.0f64;
    let mut k = 0;
    while exp != 0 {
        if exp & 1 == 1 {
            dbl_exp *= POWERS[k];
        }
        exp >>= 1;
        k += 1;
    }
    fraction = if exp_negative {
        fraction / dbl_exp
    } else {
        fraction * dbl_exp
    };
    if negative {
        -fraction
    } else {
        fraction
    }
}

#[cfg(test)]
mod tests {
    use super::{strtod, to_int};

    #[test]
    fn numbers_read_as_the_engine_reads_them() {
        assert_eq!(strtod("1.5e"), 15.0);
        assert_eq!(strtod("1e-320"), 0.0);
        assert_eq!(strtod("1e400"), f64::INFINITY);
        assert_eq!(strtod("-"), 0.0);
        assert!(strtod("-.").is_sign_negative());
        assert_eq!(strtod("0.1"), 0.1);
        assert_eq!(to_int("99999999999999999999"), i64::MAX);
        assert_eq!(to_int("-99999999999999999999"), i64::MIN);
        assert_eq!(to_int("-9223372036854775808"), i64::MIN);
        assert_eq!(to_int("-"), 0);
    }
}
