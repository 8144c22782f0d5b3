# The commands of the README. The logic lives in scripts/.
.PHONY: demo test check fuzz coverage
demo:
	bash scripts/demo.sh
test:
	bash scripts/test.sh
check:
	bash scripts/test.sh --check
fuzz:
	bash scripts/fuzz.sh
coverage:
	bash scripts/coverage.sh
