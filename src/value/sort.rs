//! Godot's `SortArray`: the introsort the engines use to order dictionary keys for
//! their text form.
//!
//! Godot's `<` on Variants is not a strict weak order (NaN, Godot 3's Array compare,
//! keys of types with no order), so the order of the result depends on the algorithm,
//! not only on `<`: to print what the engine prints, this is the engine's algorithm step
//! for step, including the debug builds' bounds checks (`ERR_BAD_COMPARE`), which stop
//! a scan instead of running off the array when `<` is inconsistent.

const INTROSORT_THRESHOLD: usize = 16;

/// Sorts `v` as `SortArray<T, less>::sort` does (`Validate` on, as in the engines'
/// debug and editor builds).
pub(crate) fn sort<T: Copy>(v: &mut [T], less: &impl Fn(T, T) -> bool) {
    if v.len() < 2 {
        return;
    }
    let s = Sorter { less };
    let depth = 2 * (usize::BITS - 1 - v.len().leading_zeros()) as usize;
    s.introsort(v, 0, v.len(), depth);
    s.final_insertion_sort(v, 0, v.len());
}

struct Sorter<'a, F> {
    less: &'a F,
}

impl<F> Sorter<'_, F> {
    fn lt<T: Copy>(&self, a: T, b: T) -> bool
    where
        F: Fn(T, T) -> bool,
    {
        (self.less)(a, b)
    }

    fn median_of_3<T: Copy>(&self, a: T, b: T, c: T) -> T
    where
        F: Fn(T, T) -> bool,
    {
        if self.lt(a, b) {
            if self.lt(b, c) {
                b
            } else if self.lt(a, c) {
                c
            } else {
                a
            }
        } else if self.lt(a, c) {
            a
        } else if self.lt(b, c) {
            c
        } else {
            b
        }
    }

    fn introsort<T: Copy>(&self, v: &mut [T], first: usize, mut last: usize, mut depth: usize)
    where
        F: Fn(T, T) -> bool,
    {
        while last - first > INTROSORT_THRESHOLD {
            if depth == 0 {
                self.partial_sort(v, first, last, last);
                return;
            }
            depth -= 1;
            let pivot = self.median_of_3(v[first], v[first + (last - first) / 2], v[last - 1]);
            let cut = self.partitioner(v, first, last, pivot);
            self.introsort(v, cut, last, depth);
            last = cut;
        }
    }

    fn partitioner<T: Copy>(
        &self,
        v: &mut [T],
        mut first: usize,
        mut last: usize,
        pivot: T,
    ) -> usize
    where
        F: Fn(T, T) -> bool,
    {
        let (start, end) = (first, last);
        loop {
            while self.lt(v[first], pivot) {
                if first == end - 1 {
                    break;
                }
                first += 1;
            }
            last -= 1;
            while self.lt(pivot, v[last]) {
                if last == start {
                    break;
                }
                last -= 1;
            }
            if first >= last {
                return first;
            }
            v.swap(first, last);
            first += 1;
        }
    }

    fn partial_sort<T: Copy>(&self, v: &mut [T], first: usize, last: usize, middle: usize)
    where
        F: Fn(T, T) -> bool,
    {
        self.make_heap(v, first, middle);
        for i in middle..last {
            if self.lt(v[i], v[first]) {
                self.pop_heap_to(v, first, middle, i, v[i]);
            }
        }
        self.sort_heap(v, first, middle);
    }

    fn make_heap<T: Copy>(&self, v: &mut [T], first: usize, last: usize)
    where
        F: Fn(T, T) -> bool,
    {
        if last - first < 2 {
            return;
        }
        let len = last - first;
        let mut parent = (len - 2) / 2;
        loop {
            self.adjust_heap(v, first, parent, len, v[first + parent]);
            if parent == 0 {
                return;
            }
            parent -= 1;
        }
    }

    fn sort_heap<T: Copy>(&self, v: &mut [T], first: usize, mut last: usize)
    where
        F: Fn(T, T) -> bool,
    {
        while last - first > 1 {
            self.pop_heap_to(v, first, last - 1, last - 1, v[last - 1]);
            last -= 1;
        }
    }

    fn pop_heap_to<T: Copy>(&self, v: &mut [T], first: usize, last: usize, result: usize, value: T)
    where
        F: Fn(T, T) -> bool,
    {
        v[result] = v[first];
        self.adjust_heap(v, first, 0, last - first, value);
    }

    fn adjust_heap<T: Copy>(&self, v: &mut [T], first: usize, mut hole: usize, len: usize, value: T)
    where
        F: Fn(T, T) -> bool,
    {
        let top = hole;
        let mut second = 2 * hole + 2;
        while second < len {
            if self.lt(v[first + second], v[first + second - 1]) {
                second -= 1;
            }
            v[first + hole] = v[first + second];
            hole = second;
            second = 2 * (second + 1);
        }
        if second == len {
            v[first + hole] = v[first + second - 1];
            hole = second - 1;
        }
        // push_heap
        while hole > top {
            let parent = (hole - 1) / 2;
            if !self.lt(v[first + parent], value) {
                break;
            }
            v[first + hole] = v[first + parent];
            hole = parent;
        }
        v[first + hole] = value;
    }

    fn unguarded_linear_insert<T: Copy>(&self, v: &mut [T], mut last: usize, value: T)
    where
        F: Fn(T, T) -> bool,
    {
        let mut next = last.wrapping_sub(1);
        while self.lt(value, v[next]) {
            if next == 0 {
                break;
            }
            v[last] = v[next];
            last = next;
            next -= 1;
        }
        v[last] = value;
    }

    fn linear_insert<T: Copy>(&self, v: &mut [T], first: usize, last: usize)
    where
        F: Fn(T, T) -> bool,
    {
        let value = v[last];
        if self.lt(value, v[first]) {
            v.copy_within(first..last, first + 1);
            v[first] = value;
        } else {
            self.unguarded_linear_insert(v, last, value);
        }
    }

    fn insertion_sort<T: Copy>(&self, v: &mut [T], first: usize, last: usize)
    where
        F: Fn(T, T) -> bool,
    {
        for i in first + 1..last {
            self.linear_insert(v, first, i);
        }
    }

    fn final_insertion_sort<T: Copy>(&self, v: &mut [T], first: usize, last: usize)
    where
        F: Fn(T, T) -> bool,
    {
        if last - first > INTROSORT_THRESHOLD {
            self.insertion_sort(v, first, first + INTROSORT_THRESHOLD);
            for i in first + INTROSORT_THRESHOLD..last {
                self.unguarded_linear_insert(v, i, v[i]);
            }
        } else {
            self.insertion_sort(v, first, last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sort;

    #[test]
    fn sorts_like_a_sort_on_a_total_order() {
        for n in 0..200u64 {
            let mut v: Vec<u64> = (0..n).map(|i| (i * 7919 + 13) % 101).collect();
            let mut want = v.clone();
            want.sort();
            sort(&mut v, &|a, b| a < b);
            assert_eq!(v, want, "n = {n}");
        }
    }

    #[test]
    fn an_inconsistent_order_never_runs_off_the_slice() {
        for n in 0..100usize {
            let mut v: Vec<usize> = (0..n).rev().collect();
            sort(&mut v, &|_, _| true);
            let mut v: Vec<usize> = (0..n).collect();
            sort(&mut v, &|a, b| (a ^ b) & 1 == 1);
        }
    }
}
