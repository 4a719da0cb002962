"""A folder's pairing policy (inspector/checkpoint/pairing.py): by digest, copies by name stem, drift by
name stem, the rest alone, sorted by path."""

from inspector.checkpoint.pairing import name_stem, pair_by_digest


def test_name_stem_drops_the_role_words_in_every_spelling():
    assert [name_stem(p) for p in ("/x/Run-7.payload.json", "/x/run-7.descriptor.json", "/x/run-7-payload.json",
                                   "/x/run-7_descriptor.json", "/x/payload.json")] == ["run-7"] * 4 + [""]


def test_copies_pair_with_their_own_descriptor_drift_pairs_by_name_and_the_rest_stay_alone():
    a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    payloads = [("P-copy", "/f/copy.payload.json", a), ("P-orig", "/f/orig.payload.json", a),
                ("P-drift", "/f/drift.payload.json", b), ("P-lone", "/f/lone.payload.json", None)]
    descriptors = [("D-orig", "/f/orig.descriptor.json", a), ("D-copy", "/f/copy.descriptor.json", a),
                   ("D-drift", "/f/drift.descriptor.json", "sha256:" + "c" * 64),
                   ("D-alone", "/f/zz.descriptor.json", None)]
    assert pair_by_digest(payloads, descriptors) == [
        ("P-copy", "D-copy"), ("P-drift", "D-drift"), ("P-lone", None),
        ("P-orig", "D-orig"), (None, "D-alone"),
    ]


def test_a_descriptor_takes_a_matching_payload_of_another_name_when_its_own_is_missing():
    a = "sha256:" + "a" * 64
    assert pair_by_digest([("P", "/f/renamed.json", a)], [("D", "/f/x.descriptor.json", a)]) == [("P", "D")]
    assert pair_by_digest([], [("D", "/f/x.descriptor.json", a)]) == [(None, "D")]


def test_a_sibling_found_by_name_says_which_digest_does_not_match_and_nothing_it_cannot_know():
    """`verify PAYLOAD` alone printed "…, which has the same name, but the digests differ (the verdict says how)"
    beside a verdict that said nothing of the descriptor (a newcomer trial): the sentence says what differs."""
    from inspector.checkpoint.pairing import Sibling

    by_name = Sibling("/d/run-7.descriptor.json", "name")
    assert by_name.sentence("payload") == ("the descriptor beside it, run-7.descriptor.json, which has a matching "
                                           "name, but its content_digest is not this payload's SHA-256")
    assert Sibling("/d/run-7.payload.json", "name").sentence("descriptor") == (
        "the payload beside it, run-7.payload.json, which has a matching name, but its SHA-256 is not this "
        "descriptor's content_digest")
    assert Sibling("/d/x.descriptor.json", "digest").sentence("payload") == (
        "the descriptor beside it, x.descriptor.json, which matches (its content_digest is this payload's SHA-256)")
