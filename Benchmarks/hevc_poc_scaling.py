#!/usr/bin/env python3
"""Whether HEVC repeat pictures could keep x265's B-frames the way H.264's do (issue 56, docs/repeats.md,
"HEVC: B-frames with repeats").

H.264's B-frame repeats multiply every picture order count by one number M (the repeats take the counts between),
which is exact there because nothing x264 uses with `direct=spatial` and `weightb=0` depends on the distances
between counts. HEVC's motion vector prediction does: a spatial AMVP candidate whose neighbour points at another
reference picture is scaled by the ratio of two count distances (H.265 8.5.3.2.8, the same arithmetic as the
temporal candidate's, 8.5.3.2.8 eq. 8-197..8-199):

    td = Clip3(-128, 127, DiffPicOrderCnt(current, neighbour's reference))
    tb = Clip3(-128, 127, DiffPicOrderCnt(current, target reference))
    tx = (16384 + (Abs(td) >> 1)) / td
    distScaleFactor = Clip3(-4096, 4095, (tb * tx + 32) >> 6)

and the scaled vector depends only on distScaleFactor. So multiplying every count by M leaves the decoded pictures
what x265 coded exactly when distScaleFactor(M*td, M*tb) == distScaleFactor(td, tb) for every distance pair the
stream can use. This prints, for the largest distance D x265 may use (in its own pictures), the factors M that keep
every pair with |td|, |tb| <= D, and the pairs that break the first factors that do not.

Run: python3 Benchmarks/hevc_poc_scaling.py
"""


def clip3(low, high, x):
    return max(low, min(high, x))


def c_div(a, b):
    """C's integer division (truncation toward zero), as the spec's "/"."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def dist_scale_factor(td, tb):
    td, tb = clip3(-128, 127, td), clip3(-128, 127, tb)
    tx = c_div(16384 + (abs(td) >> 1), td)
    return clip3(-4096, 4095, (tb * tx + 32) >> 6)


def broken_pairs(m, d):
    return [(td, tb) for td in range(-d, d + 1) for tb in range(-d, d + 1)
            if td and tb and dist_scale_factor(td, tb) != dist_scale_factor(m * td, m * tb)]


def main():
    print("| largest distance D | factors M <= 32 exact for every pair |td|, |tb| <= D | pairs broken at M = 2 |")
    print("|---|---|---|")
    for d in (2, 3, 4, 5, 6, 7, 8, 12, 16):
        exact = [m for m in range(2, 33) if not broken_pairs(m, d)]
        broken = broken_pairs(2, d)
        print(f"| {d} | {', '.join(map(str, exact)) or 'none'} | {len(broken)} of {(2 * d) ** 2}"
              + (f", e.g. (td, tb) = {broken[0]}: {dist_scale_factor(*broken[0])} against "
                 f"{dist_scale_factor(2 * broken[0][0], 2 * broken[0][1])}" if broken else "") + " |")


if __name__ == "__main__":
    main()
