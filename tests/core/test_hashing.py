

def test_sha256_frame_is_order_independent_and_works_on_copy_on_write_frames():
    import pandas as pd

    from ranklens._hashing import sha256_frame

    a = pd.DataFrame({"query_id": ["1", "2", "2"], "doc_id": ["a", "b", "c"], "score": [1.0, 2.0, 3.0]})
    # a reference: the sorted multiset of rows decides the digest, nothing else
    assert sha256_frame(a) == sha256_frame(a.iloc[[2, 0, 1]].reset_index(drop=True))
    assert sha256_frame(a) != sha256_frame(a.assign(score=[1.0, 2.0, 4.0]))
    assert sha256_frame(a, ["query_id"]) == sha256_frame(a.assign(doc_id=["x", "y", "z"]), ["query_id"])
    assert sha256_frame(a.iloc[:0]) == sha256_frame(a.iloc[:0].copy())
