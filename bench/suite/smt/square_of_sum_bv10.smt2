; QF_BV, unsat: (a+b)^2 = a^2 + 2ab + b^2 on 10 bits. Bit-blasting four multipliers makes a SAT
; problem whose clause database lives in malloc'd memory (the load an allocator changes).
(set-logic QF_BV)
(declare-const a (_ BitVec 10))
(declare-const b (_ BitVec 10))
(assert (not (= (bvmul (bvadd a b) (bvadd a b))
                (bvadd (bvmul a a) (bvmul (_ bv2 10) (bvmul a b)) (bvmul b b)))))
(check-sat)
(exit)
