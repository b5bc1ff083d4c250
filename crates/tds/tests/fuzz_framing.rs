//! Any bytes into the framing and handshake decoders (packets and message reassembly,
//! PRELOGIN, LOGIN7, SQLBatch, transaction-manager requests, non-row tokens): an error or a
//! value, never a panic. Random bytes and mutations of valid messages (so the fuzzer gets past
//! the first length check). `TDS_FUZZ_CASES` raises the case count for long runs.

use proptest::prelude::*;
use tds::batch::{AllHeaders, SqlBatch, TmMessage, TmRequest};
use tds::login7::{FeatureExt, Login7, TDS74};
use tds::packet::{self, MessageReader};
use tds::prelogin::PreLogin;
use tds::tokens;

fn cases() -> u32 {
    std::env::var("TDS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

fn valid_messages() -> Vec<Vec<u8>> {
    let login = Login7 {
        tds_version: TDS74,
        packet_size: 4096,
        user_name: "sa".into(),
        password: "pw".into(),
        database: "master".into(),
        features: vec![FeatureExt {
            id: 0x0A,
            data: vec![1],
        }],
        ..Default::default()
    };
    let pre = PreLogin {
        version: Some(([15, 0, 7, 0xD0], 0)),
        encryption: Some(0),
        instance: Some(vec![]),
        thread_id: Some(1),
        mars: Some(0),
        trace_id: Some(vec![0; 36]),
        fed_auth_required: Some(0),
        nonce: Some([1; 32]),
    };
    let batch = SqlBatch {
        headers: AllHeaders {
            transaction_descriptor: 5,
            outstanding_requests: 1,
        },
        text: "SELECT 1".into(),
    };
    let tm = TmMessage {
        headers: AllHeaders::default(),
        request: TmRequest::Commit {
            name: "t".into(),
            begin_new: Some((2, "u".into())),
        },
    };
    let mut toks = Vec::new();
    tokens::env_change(&mut toks, &tokens::EnvChange::BeginTransaction(9));
    tokens::error(
        &mut toks,
        &tokens::MessageToken {
            number: 208,
            state: 1,
            class: 16,
            text: "x".into(),
            ..Default::default()
        },
    );
    tokens::done(&mut toks, tokens::token::DONE, &tokens::Done::default());
    vec![
        login.encode(),
        pre.encode(),
        batch.encode(),
        tm.encode(),
        toks,
    ]
}

fn decode_everything(b: &[u8]) {
    let _ = PreLogin::parse(b);
    let _ = Login7::parse(b);
    let _ = SqlBatch::parse(b);
    let _ = TmMessage::parse(b);
    let mut pos = 0;
    while pos < b.len() {
        match tokens::decode(b, pos) {
            Ok(Some((_, end))) if end > pos => pos = end,
            _ => break,
        }
    }
    // As a packet stream: reassembly with a small cap.
    let mut r = b;
    let mut asm = MessageReader::new(4096);
    while let Ok(Some((h, p))) = packet::read_packet(&mut r, 4096) {
        if asm.push(&h, &p).is_err() {
            break;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..600)) {
        decode_everything(&b);
    }

    #[test]
    fn mutated_messages_never_panic(
        which in 0usize..5,
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
        cut in any::<usize>(),
    ) {
        let mut m = valid_messages().swap_remove(which);
        for (at, v) in flips {
            let i = at % m.len();
            m[i] = v;
        }
        let cut = cut % (m.len() + 1);
        decode_everything(&m[..cut]);
        decode_everything(&m);
        let framed = packet::encode_message(packet::ptype::LOGIN7, 0, &m, 512);
        decode_everything(&framed);
    }
}
