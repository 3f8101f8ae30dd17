"""The last line a script test prints, in the Catch2 form scripts/test.sh counts."""


def report(cases):
    """cases: (name, [failure messages], assertions) per test case; prints one line
    per case, then the summary. Returns the exit code."""
    failed = 0
    for name, failures, _ in cases:
        print(f"{name}: {'FAILED' if failures else 'ok'}")
        for f in failures:
            print(f"    {f}")
        failed += bool(failures)
    assertions = sum(n for _, _, n in cases)
    if failed:
        print(f"test cases: {len(cases)} | {len(cases) - failed} passed | {failed} failed")
    else:
        print(f"All tests passed ({assertions} assertions in {len(cases)} test cases)")
    return 1 if failed else 0
