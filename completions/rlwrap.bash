# bash completion for rlwrap (rate-limit wrap for AI agent CLIs)
_rlwrap() {
	local cur prev words cword
	_init_completion || return

	local commands="run classify-failure record status reset trip wait recover history usage metrics replay config help"
	local families="claude codex gemini pi opencode cursor qwen goose amp copilot generic"
	local reasons="none rate-limit usage-limit credit-exhausted overloaded unavailable auth timeout invalid-request agent-error no-result exit-nonzero"
	local wrapper_opts="--family --model --account --wait --retry --raw-stream --signal-file --force --quiet --verbose --pty --no-pty --no-record --priority --color --help --version"
	local states="running finished lost refused"
	local sub="" i

	# The wrapper's options end at the first operand: after it (and after
	# "--") everything is the command's.  A value of -f, -m, -a, --raw-stream
	# or --signal-file is not an operand.
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--) _command_offset $((i + 1)); return ;;
		-f|--family|-m|--model|-a|--account|--raw-stream|--signal-file) ((i++)) ;;
		-*) ;;
		*)
			if [[ -z $sub && " $commands " == *" ${words[i]} "* ]]; then
				sub=${words[i]}
				[[ $sub == run ]] && continue
				break
			fi
			_command_offset "$i"; return ;;
		esac
	done

	case $prev in
	--family|-f) COMPREPLY=($(compgen -W "$families" -- "$cur")); return ;;
	--reason) COMPREPLY=($(compgen -W "$reasons" -- "$cur")); return ;;
	--raw-stream|--signal-file) _filedir; return ;;
	--filter)
		if [[ $cur == reason=* ]]; then
			COMPREPLY=($(compgen -P "reason=" -W "$reasons" -- "${cur#reason=}"))
		elif [[ $cur == family=* ]]; then
			COMPREPLY=($(compgen -P "family=" -W "$families" -- "${cur#family=}"))
		elif [[ $cur == state=* ]]; then
			COMPREPLY=($(compgen -P "state=" -W "$states" -- "${cur#state=}"))
		else
			compopt -o nospace
			COMPREPLY=($(compgen -W "reason= family= model= account= exit= cwd= state=" -- "$cur"))
		fi
		return ;;
	--by) COMPREPLY=($(compgen -W "key family model account" -- "$cur")); return ;;
	esac

	case $sub in
	"")
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$wrapper_opts" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur") $(compgen -c -- "$cur"))
		fi ;;
	classify-failure) COMPREPLY=($(compgen -W "--json --all --family --exit-code --now --pty --screen --help" -- "$cur")); [[ $cur == -* ]] || _filedir ;;
	record) COMPREPLY=($(compgen -W "--family --model --account --exit-code --help" -- "$cur")); [[ $cur == -* ]] || _filedir ;;
	status) COMPREPLY=($(compgen -W "--json --all --short --color --help" -- "$cur")) ;;
	reset) COMPREPLY=($(compgen -W "--all --help $families" -- "$cur")) ;;
	trip) COMPREPLY=($(compgen -W "--for --until --reason --force --help $families" -- "$cur")) ;;
	wait) COMPREPLY=($(compgen -W "--timeout --help $families" -- "$cur")) ;;
	recover) COMPREPLY=($(compgen -W "--filter --since --limit --json --yes --wait --max-attempts --include-lost --follow-symlinks --help" -- "$cur")) ;;
	history) COMPREPLY=($(compgen -W "--json --since --limit --filter --help" -- "$cur")) ;;
	usage) COMPREPLY=($(compgen -W "--json --since --by --help" -- "$cur")) ;;
	metrics) COMPREPLY=($(compgen -W "--help" -- "$cur")) ;;
	replay) COMPREPLY=($(compgen -W "--background --for --help" -- "$cur")) ;;
	config) COMPREPLY=($(compgen -W "check show --help" -- "$cur")) ;;
	help) COMPREPLY=($(compgen -W "--help $commands" -- "$cur")) ;;
	run)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$wrapper_opts" -- "$cur"))
		else
			COMPREPLY=($(compgen -c -- "$cur"))
		fi ;;
	esac
}
complete -F _rlwrap rlwrap
