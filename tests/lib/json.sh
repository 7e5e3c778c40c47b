# SPDX-License-Identifier: GPL-2.0
#
# JSON fields from goblinctl -j output for the shell suites, through jq:
# one small C program, where a python3 start reads hundreds of files over
# the guest's 9p root (about 15 s each on the debug kernel under load).
# Integers are exact up to 2^53 (jq 1.6 keeps numbers as doubles).
#
# Source it: . "$repo/tests/lib/json.sh"

# jfield NAME: field NAME of the JSON object on stdin ("" if absent)
jfield() {
	jq -r --arg k "$1" 'if type == "object" and has($k) then .[$k] | tostring else "" end'
}

# jlines: the JSON object on stdin as "name value" lines
jlines() {
	jq -r 'to_entries[] | "\(.key) \(.value | tostring)"'
}

# jport PORT FIELD: FIELD of the entries of the JSON array on stdin whose
# "port" is PORT, one per line
jport() {
	jq -r --argjson p "$1" --arg k "$2" \
		'.[] | select(.port == $p) | if has($k) then .[$k] | tostring else "" end'
}
