# The two commands of the README. The logic lives in scripts/.
.PHONY: demo test
demo:
	bash scripts/demo.sh
test:
	bash scripts/test.sh
.PHONY: fuzz
fuzz:
	bash scripts/fuzz.sh
