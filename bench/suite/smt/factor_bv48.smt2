; QF_BV, sat: factor the 48-bit semiprime 281474641166387 = 16777213 * 16777199, both factors above 1. The
; solver bit-blasts a 48-bit multiplier: a SAT search whose clause database lives in malloc'd memory.
(set-logic QF_BV)
(declare-const p (_ BitVec 48))
(declare-const q (_ BitVec 48))
(assert (= (bvmul p q) (_ bv281474641166387 48)))
(assert (bvugt p (_ bv1 48)))
(assert (bvugt q (_ bv1 48)))
(assert (bvult p (_ bv16777216 48)))
(assert (bvult q (_ bv16777216 48)))
(check-sat)
(exit)
