"""Demo campaigns, one per ruleset, in Spanish: what `make run` shows a first-time visitor.

Idempotent: a campaign that already exists (same title, same creator) is left as it is.
Demo passwords are for local use only (README says so); demo addresses are confirmed example.org ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.write_limits import limits_paused
from campaigns import services
from campaigns.models import Campaign, CampaignStatus, Recipients, Role, Scene, SceneAccess, Visibility, Voice
from characters import services as character_services
from characters.models import Character
from rolls import runner
from rolls.models import Flow
from rolls.services import RollSpec, create_post_with_rolls
from systems.dice import ScriptedDice

DEMO_PASSWORD = "tintero-demo"

DEMO_USERS = {
    "directora": "Directora",
    "ana": "Ana",
    "bruno": "Bruno",
    "carla": "Carla",
    "dario": "Darío",
    "lector": "Lector curioso",
}


@dataclass(frozen=True)
class DemoScene:
    title: str
    description: str
    aspects: tuple[tuple[str, bool, int], ...]  # text, hidden, free invocations
    posts: tuple[tuple[str, str, str, str], ...]  # who, voice, body, notes
    listed: bool = False


@dataclass(frozen=True)
class DemoCampaign:
    ruleset: str
    title: str
    introduction: str
    synopsis: str
    players: tuple[str, str]
    characters: tuple[str, str]
    scenes: tuple[DemoScene, ...]
    visibility: str = Visibility.PUBLIC
    extra: dict[str, str] = field(default_factory=dict)
    # A demo campaign that recruits shows the directory and the join flow working: its message and seats.
    recruiting: str = ""
    seats: int | None = None


CAMPAIGNS: tuple[DemoCampaign, ...] = (
    DemoCampaign(
        ruleset="fate-sotc",
        title="Los Pulp del Siglo",
        introduction="1922. El Club del Siglo reúne a aventureros extraordinarios contra el Doctor Méndez.",
        synopsis="Una expedición al Amazonas en busca de un zepelín perdido.",
        players=("ana", "bruno"),
        characters=("Jack Sable, aviador temerario", "Profesora Elena Vidal"),
        scenes=(
            DemoScene(
                title="El hangar de Lakehurst",
                description="Niebla, hélices y un zepelín que no debería estar aquí.",
                aspects=(("Niebla espesa", False, 1), ("Combustible derramado", False, 0), ("Sabotaje", True, 0)),
                posts=(
                    ("directora", "narrator", "La niebla envuelve el hangar. Algo cruje en lo alto del zepelín.", ""),
                    ("ana", "character", "—¡Elena, cúbreme! Subo por la escalerilla.", "Tiro Atletismo (+2)."),
                    ("bruno", "character", "Saco la lupa y examino el charco de combustible.", ""),
                ),
            ),
        ),
    ),
    DemoCampaign(
        ruleset="fate-accelerated",
        title="Espías de la Corona",
        introduction="Madrid, 1898. Espías al servicio de una Corona que se desmorona.",
        synopsis="Recuperar los planos del submarino de Peral antes que los agentes extranjeros.",
        players=("carla", "dario"),
        characters=("Ana de Alba, espía", "Tomás Ruiz, falsificador"),
        scenes=(
            DemoScene(
                title="Baile en el Palacio de Linares",
                description="Valses, abanicos y un sobre lacrado que cambia de manos.",
                aspects=(("Salón abarrotado", False, 0), ("Guardias por todas partes", False, 1)),
                posts=(
                    (
                        "directora",
                        "narrator",
                        "La orquesta ataca un vals. El embajador guarda un sobre en su levita.",
                        "",
                    ),
                    ("carla", "character", "Me acerco con una sonrisa y el abanico a medio abrir.", "Con Estilo (+3)."),
                    ("dario", "character", "Preparo una copia del sobre en la biblioteca.", ""),
                ),
            ),
        ),
    ),
    DemoCampaign(
        ruleset="event",
        title="La Ciudad de los Ecos",
        introduction="Una ciudad donde cada calle repite lo que se dijo en ella hace cien años.",
        synopsis="Los personajes buscan la voz que falta en el coro de la ciudad.",
        players=("ana", "carla"),
        characters=("Irene, cartógrafa de sonidos", "Mateo, ladrón de susurros"),
        scenes=(
            DemoScene(
                title="El mercado de las voces",
                description="Puestos que venden frases antiguas en frascos de cristal.",
                aspects=(),
                posts=(
                    ("directora", "narrator", "El mercado bulle. Un frasco tiembla en un puesto vacío.", ""),
                    ("ana", "character", "Me acerco al frasco y escucho.", "Habilidad: Escuchar."),
                    ("carla", "character", "Vigilo al tendero mientras Irene escucha.", ""),
                ),
            ),
        ),
    ),
    DemoCampaign(
        ruleset="presagios",
        title="La casa de la colina",
        introduction="Un fin de semana en una casa heredada. Nadie debería haber vuelto.",
        synopsis="Terror rural: la amenaza crece con cada presagio.",
        recruiting=(
            "Buscamos una tercera persona para la casa: alguien que llegue de noche, sin invitación. "
            "Un mensaje cada dos o tres días; no hace falta conocer el juego."
        ),
        seats=3,
        players=("bruno", "dario"),
        characters=("Lucía, estudiante de Medicina", "Hugo, el primo que nadie invitó"),
        scenes=(
            DemoScene(
                title="Llegada al anochecer",
                description="El coche se detiene ante una verja oxidada. La casa espera.",
                aspects=(),
                posts=(
                    (
                        "directora",
                        "narrator",
                        "La verja chirría. En una ventana del segundo piso, una luz se apaga.",
                        "",
                    ),
                    ("bruno", "character", "—¿Habéis visto eso? Alguien hay dentro.", ""),
                    ("dario", "character", "Cojo la linterna de la guantera.", "Herramienta: linterna."),
                ),
            ),
        ),
    ),
    DemoCampaign(
        ruleset="dont-rest-your-head",
        title="No te duermas: Ciudad Pesadilla",
        introduction="Llevas cuatro noches sin dormir. Esta noche, la ciudad se ha abierto.",
        synopsis="Insomnes atrapados en la Ciudad Pesadilla buscan el camino de vuelta.",
        players=("ana", "dario"),
        characters=("Marta, enfermera de noche", "Samuel, taxista insomne"),
        scenes=(
            DemoScene(
                title="El tren de las 3:33",
                description="Un vagón de metro que no figura en ningún plano.",
                aspects=(),
                posts=(
                    ("directora", "narrator", "Las puertas se abren en una estación que no existe. Huele a óxido.", ""),
                    ("ana", "character", "Agarro a Samuel del brazo. —No bajes.", "Disciplina 3."),
                    ("dario", "character", "Bajo. Tengo que saber qué hay ahí.", ""),
                ),
            ),
        ),
    ),
    DemoCampaign(
        ruleset="generic",
        title="Crónicas de Valnegro",
        introduction="Fantasía clásica con dados de siempre: 1d20 y lo que haga falta.",
        synopsis="Una compañía de mercenarios acepta un encargo en las minas de Valnegro.",
        players=("bruno", "carla"),
        characters=("Brunilda, guerrera", "Fenn, mago errante"),
        scenes=(
            DemoScene(
                title="La posada del Cuervo",
                description="Humo, cerveza y un enano con un mapa.",
                aspects=(),
                posts=(
                    ("directora", "narrator", "El enano extiende un mapa manchado de vino sobre la mesa.", ""),
                    ("bruno", "character", "—¿Cuánto paga el trabajo?", ""),
                    ("carla", "character", "Examino el mapa buscando runas.", "Arcanos: 1d20+4."),
                ),
            ),
        ),
        visibility=Visibility.PRIVATE,
    ),
)


def _approaches(careful: int, clever: int, sneaky: int, flashy: int, quick: int, forceful: int) -> dict[str, int]:
    return {
        "careful": careful,
        "clever": clever,
        "sneaky": sneaky,
        "flashy": flashy,
        "quick": quick,
        "forceful": forceful,
    }


def _sotc_sheet(skills: dict[str, int], aspects: list[str], stunts: list[dict[str, object]]) -> dict[str, object]:
    return {
        "skills": skills,
        "aspects": [{"id": f"aspecto-{i + 1}", "text": t} for i, t in enumerate(aspects)],
        "stunts": stunts,
    }


# Two different people: their own skills pyramid, ten aspects of their own, their own stunts.
JACK_SABLE = _sotc_sheet(
    {
        "pilot": 5,
        "guns": 4,
        "athletics": 4,
        "endurance": 3,
        "alertness": 3,
        "drive": 3,
        "fists": 2,
        "stealth": 2,
        "rapport": 2,
        "resolve": 2,
        "might": 1,
        "deceit": 1,
        "empathy": 1,
        "survival": 1,
        "intimidation": 1,
    },
    [
        "As del aire de la Gran Guerra",
        "Miembro del Club del Siglo",
        "Deuda de honor con el doctor Méndez",
        "Nunca dejo a nadie atrás",
        "Sonrisa de anuncio",
        "Rivalidad con el Barón Negro",
        "Demasiado orgulloso para pedir ayuda",
        "Mapas de todos los cielos",
        "¡Agárrense, que despegamos!",
        "Veterano con una bala en el hombro",
    ],
    [
        {"name": "Acrobacias aéreas", "linked_skill": "pilot", "fp_cost": 0, "description": "+1 a Piloto al esquivar."},
        {"name": "Tiro imposible", "linked_skill": "guns", "fp_cost": 1, "description": "Un disparo a ciegas."},
        {"name": "Tenaz", "linked_skill": "endurance", "fp_cost": 0, "description": "Aguanta el dolor."},
        {"name": "Contactos en el hangar", "linked_skill": None, "fp_cost": 1, "description": "Siempre hay alguien."},
        {"name": "Aterrizaje forzoso", "linked_skill": "pilot", "fp_cost": 0, "description": "Cualquier campo vale."},
    ],
)
ELENA_VIDAL = _sotc_sheet(
    {
        "academics": 5,
        "science": 4,
        "investigation": 4,
        "alertness": 3,
        "leadership": 3,
        "resolve": 3,
        "empathy": 2,
        "rapport": 2,
        "mysteries": 2,
        "art": 2,
        "resources": 1,
        "contacting": 1,
        "athletics": 1,
        "stealth": 1,
        "burglary": 1,
    },
    [
        "Arqueóloga de la Sorbona",
        "Leo lenguas que nadie habla desde hace mil años",
        "El Museo Británico me quiere de vuelta",
        "Mi padre desapareció en el Amazonas",
        "Una lupa para cada ocasión",
        "Escéptica hasta que deja de serlo",
        "Discípula díscola de madame Curie",
        "Tengo una teoría sobre eso",
        "Cuaderno de campo lleno de bocetos",
        "Jack Sable me debe la vida",
    ],
    [
        {"name": "Erudición enciclopédica", "linked_skill": "academics", "fp_cost": 0, "description": "Lo ha leído."},
        {"name": "Laboratorio portátil", "linked_skill": "science", "fp_cost": 1, "description": "Un maletín."},
        {"name": "Ojo para el detalle", "linked_skill": "investigation", "fp_cost": 0, "description": "+1 al buscar."},
        {"name": "Políglota", "linked_skill": "rapport", "fp_cost": 0, "description": "Siempre se entiende."},
        {"name": "Colegas en cada museo", "linked_skill": None, "fp_cost": 1, "description": "Una carta basta."},
    ],
)


def _event_skill(name: str, improvements: int = 0) -> dict[str, object]:
    return {
        "name": name,
        "improvements": improvements,
        "origin": "CREATION",
        "progress_improvements": 0,
        "category": None,
        "improvable": True,
    }


# Two complete sheets per ruleset, written as a player would; the creation rules run on submission.
DEMO_SHEETS: dict[str, tuple[dict[str, object], dict[str, object]]] = {
    "fate-sotc": (JACK_SABLE, ELENA_VIDAL),
    "fate-accelerated": (
        {
            "approaches": _approaches(1, 2, 3, 0, 2, 1),
            "high_concept": "Espía de la Corona",
            "trouble": "Debo proteger a mi hermano",
            "other_aspects": ["Atenta a los detalles"],
        },
        {
            "approaches": _approaches(2, 3, 1, 1, 2, 0),
            "high_concept": "Falsificador de documentos reales",
            "trouble": "Debo dinero a medio Madrid",
        },
    ),
    "event": (
        {
            "status": "CREATING",
            "handle": "Irene",
            "who_am_i": "Soy Irene, cartógrafa de sonidos perdidos.",
            "appearance": "Treinta años, cuaderno lleno de pentagramas, auriculares de latón.",
            "skills": [_event_skill("Escuchar", 2), _event_skill("Orientarse"), _event_skill("Convencer", 1)],
            "talent": None,
            "progress_window": None,
            "progress_used": False,
        },
        {
            "status": "CREATING",
            "handle": "Mateo",
            "who_am_i": "Soy Mateo, ladrón de susurros.",
            "appearance": "Flaco, descalzo, con una bolsa de frascos vacíos.",
            "skills": [_event_skill("Robar", 2), _event_skill("Esconderse", 1), _event_skill("Correr")],
            "talent": None,
            "progress_window": None,
            "progress_used": False,
        },
    ),
    "presagios": (
        {
            "kind": "principal",
            "concept": "Estudiante de Medicina",
            "base": [4, 3, 2],
            "traits": [
                {"name": "Primeros auxilios", "characteristic": "c1", "value": 3, "supernatural": False},
                {"name": "Correr", "characteristic": "c1", "value": 1, "supernatural": False},
                {"name": "Calmar a otros", "characteristic": "c2", "value": 2, "supernatural": False},
                {"name": "Ver a los muertos", "characteristic": "c2", "value": 1, "supernatural": True},
                {"name": "Anatomía", "characteristic": "c3", "value": 2, "supernatural": False},
            ],
            "hitos": ["Sobrevivió al incendio del orfanato", "Su hermana desapareció en 1987"],
            "complications": ["No soporta la sangre"],
            "descriptors": ["Nerviosa"],
            "weaknesses": [],
        },
        {
            "kind": "principal",
            "concept": "El primo que nadie invitó",
            "base": [3, 4, 2],
            "traits": [
                {"name": "Pelear", "characteristic": "c1", "value": 2, "supernatural": False},
                {"name": "Forzar cerraduras", "characteristic": "c1", "value": 1, "supernatural": False},
                {"name": "Mentir", "characteristic": "c2", "value": 3, "supernatural": False},
                {"name": "Oír lo que no suena", "characteristic": "c2", "value": 1, "supernatural": True},
                {"name": "Conducir de noche", "characteristic": "c3", "value": 2, "supernatural": False},
            ],
            "hitos": ["Vendió el reloj del abuelo", "Vivió dos años en Lisboa sin decírselo a nadie"],
            "complications": ["Le debe dinero a la familia"],
            "descriptors": ["Encantador"],
            "weaknesses": [],
        },
    ),
    "dont-rest-your-head": tuple(
        {
            "exhaustion_talent": {"name": exhaustion, "description": "Más allá de lo humano."},
            "madness_talent": {
                "name": madness,
                "description": "Cuando la locura manda.",
                "price_rule": {"kind": "at_least", "n": 3, "min": None, "max": None},
            },
            "questions": {
                "awake": "Los gritos del piso de arriba, cada noche a las tres.",
                "just_happened": "Seguí a un cartero sin sombra hasta el Distrito Trece.",
                "surface": surface,
                "beneath": "No recuerda la cara de su hija.",
                "path": "Encontrar el camino de vuelta.",
            },
        }
        for exhaustion, madness, surface in (
            ("Vista de Lince", "Piel de Piedra", "Enfermera de urgencias."),
            ("Conducir sin dormir", "Atajos imposibles", "Taxista de noche."),
        )
    ),  # type: ignore[dict-item]
    "generic": (
        {"notes": "Guerrera. Fuerza 16, Destreza 12. Espada larga, escudo."},
        {"notes": "Mago errante. Inteligencia 17. Bastón, grimorio."},
    ),
}


def demo_address(username: str) -> str:
    """The demo user's address: example.org is reserved (RFC 2606), so mail tried locally reaches nobody."""
    return f"{username}@example.org"


def _user(username: str) -> User:
    user, created = User.objects.get_or_create(username=username, defaults={"display_name": DEMO_USERS[username]})
    if created:
        user.set_password(DEMO_PASSWORD)
    if created or not user.email:
        # Confirmed already, so mail (notifications, password reset) can be tried at once with the console
        # backend; a demo loaded before addresses existed gets them too.
        user.email, user.email_verified_at = demo_address(username), timezone.now()
        user.save()
    return user


@transaction.atomic
def _load_campaign(spec: DemoCampaign, gm: User) -> Campaign | None:
    if Campaign.objects.filter(title=spec.title, created_by=gm).exists():
        return None
    campaign = services.create_campaign(
        creator=gm,
        title=spec.title,
        introduction=spec.introduction,
        synopsis=spec.synopsis,
        gm_notes="Secreto del máster: el verdadero villano aparece en la tercera escena.",
        ruleset=spec.ruleset,
        visibility=spec.visibility,
        status=CampaignStatus.RECRUITING if spec.recruiting else CampaignStatus.ACTIVE,
        recruiting_message=spec.recruiting,
        seats=spec.seats,
    )
    players = [_user(name) for name in spec.players]
    characters: dict[str, Character] = {}
    for player, name, sheet in zip(players, spec.characters, DEMO_SHEETS[spec.ruleset], strict=True):
        services.invite(actor=gm, campaign=campaign, user=player, role=Role.PLAYER)
        invitation = player.invitations.get(campaign=campaign)
        services.respond_to_invitation(user=player, invitation=invitation, accept=True)
        # Through the same creation flow as a player's: the ruleset's creation rules must hold.
        draft = character_services.create_character(actor=player, campaign=campaign, name=name, sheet=sheet)
        character_services.submit_character(actor=player, character=draft)
        characters[player.username] = character_services.approve_character(actor=gm, character=draft)
    reader = _user("lector")
    if spec.visibility == Visibility.PUBLIC:
        services.request_to_join(user=reader, campaign=campaign, role=Role.READER, message="¡Me encanta leeros!")
        join = campaign.join_requests.get(user=reader)
        services.decide_join_request(actor=gm, join_request=join, accept=True)
    for number, scene_spec in enumerate(spec.scenes):
        scene = services.create_scene(
            actor=gm,
            campaign=campaign,
            title=scene_spec.title,
            description=scene_spec.description,
            access=SceneAccess.ALL_MEMBERS,
        )
        for text, hidden, free in scene_spec.aspects:
            services.add_scene_aspect(actor=gm, scene=scene, text=text, hidden=hidden, free_invocations=free)
        users = {u.username: u for u in [gm, *players]}
        for who, voice, body, notes in scene_spec.posts:
            services.create_post(
                author=users[who],
                scene=scene,
                body=body,
                notes=notes,
                voice=voice,
                character=characters.get(who) if voice == Voice.CHARACTER else None,
            )
        if number == 0:
            _play(spec.ruleset, scene, gm, players, [characters[p.username] for p in players])
        services.create_post(
            author=gm,
            scene=scene,
            body=f"*(Susurro)* {players[0].public_name}, notas un olor extraño que nadie más percibe.",
            voice=Voice.NARRATOR,
            recipients=Recipients.WHISPER,
            whisper_to=[players[0].pk],
        )
        services.create_post(
            author=gm,
            scene=scene,
            body="Nota para másters: la amenaza entra en la siguiente escena.",
            voice=Voice.OOC,
            recipients=Recipients.GMS,
        )
        # A scene that only the first player can read: a private thread for a split party.
        private = services.create_scene(
            actor=gm,
            campaign=campaign,
            title=f"{scene_spec.title}: aparte",
            description="Escena privada de un solo personaje.",
            access=SceneAccess.LISTED,
            reader_ids=[players[0].pk],
            writer_ids=[players[0].pk],
        )
        services.create_post(
            author=gm,
            scene=private,
            body=f"{players[0].public_name}, te separas del grupo. Nadie te ve marchar.",
            voice=Voice.NARRATOR,
        )
    return campaign


# --- A little play in each first scene: rolls in the campaign's chain and a procedure to its end ----------
# Scripted dice so the demo tells the same story every time it loads.


def _roll_post(author: User, scene: Scene, character: Character, body: str, spec: RollSpec, dice: list[int]) -> None:
    create_post_with_rolls(
        author=author,
        scene=scene,
        body=body,
        voice=Voice.CHARACTER,
        character=character,
        rolls=[spec],
        dice=ScriptedDice(dice),
    )


def _step(flow: Flow, actor: User, step: str, dice: list[int] | None = None, **params: object) -> Flow:
    runner.take_step(
        actor=actor, flow=flow, step=step, params=params, dice=ScriptedDice(dice) if dice is not None else None
    )
    return Flow.objects.get(pk=flow.pk)


def _play_sotc(scene: Scene, gm: User, players: list[User], pcs: list[Character]) -> None:
    spec = RollSpec(kind="simple", data={"skill": "pilot", "difficulty": 3}, character_id=pcs[0].pk, label="Despegar")
    _roll_post(players[0], scene, pcs[0], "Arranco los motores a ciegas.", spec, [3, 5, 5, 1])
    roll = pcs[0].rolls.order_by("-id").first()
    assert roll is not None
    flow = runner.start_procedure(actor=players[0], scene=scene, kind="invocation", params={"roll": roll.pk})
    _step(flow, gm, "close")


def _play_fae(scene: Scene, gm: User, players: list[User], pcs: list[Character]) -> None:
    spec = RollSpec(kind="overcome", data={"approach": "sneaky", "difficulty": 2}, character_id=pcs[0].pk)
    _roll_post(players[0], scene, pcs[0], "Cambio el sobre sin que nadie lo note.", spec, [3, 2, 2, 3])
    flow = runner.start_procedure(actor=players[0], scene=scene, kind="action", params={})
    _step(flow, gm, "settle", note="El embajador no nota nada... todavía.")


def _play_event(scene: Scene, gm: User, players: list[User], pcs: list[Character]) -> None:
    spec = RollSpec(kind="action", data={"difficulty": 3, "skill": "Escuchar"}, character_id=pcs[0].pk)
    _roll_post(players[0], scene, pcs[0], "Acerco el oído al frasco.", spec, [6, 4, 2, 5])
    params = {"character": pcs[1].pk, "difficulty": 2, "skill": "Correr"}  # 2 dice against 2: he may settle
    flow = runner.start_procedure(actor=gm, scene=scene, kind="action", params=params)
    if "TAKE_PARTIAL" in (flow.state.get("offered") or []):
        flow = _step(flow, players[1], "choose", choice="TAKE_PARTIAL")
    _step(flow, gm, "narrate", text="Mateo se guarda el frasco, pero el tendero le ha visto la cara.")


def _play_presagios(scene: Scene, gm: User, players: list[User], pcs: list[Character]) -> None:
    spec = RollSpec(kind="roll", data={"characteristic": "c2"}, character_id=pcs[0].pk, label="Escuchar la casa")
    _roll_post(players[0], scene, pcs[0], "Contengo la respiración y escucho.", spec, [5, 3, 2])
    params = {"character_id": pcs[1].pk, "characteristic": "c1", "difficulty": 4, "challenge": "Abrir la verja"}
    flow = runner.start_procedure(actor=gm, scene=scene, kind="challenge", params=params)
    flow = _step(flow, players[1], "roll", dice=[5, 4, 3], traits=[])
    _step(flow, gm, "finalize")


def _play_dryh(scene: Scene, gm: User, players: list[User], pcs: list[Character]) -> None:
    flow = runner.start_procedure(actor=players[0], scene=scene, kind="conflict", params={"leader": pcs[0].pk})
    flow = _step(flow, gm, "oppose", pain=2)
    flow = _step(flow, gm, "roll_pain", dice=[5, 2])
    flow = _step(flow, players[0], "roll_leader", dice=[4, 3, 1])
    flow = _step(flow, gm, "gm_pass")
    flow = _step(flow, players[0], "pass")
    _step(flow, gm, "settle")


def _play_generic(scene: Scene, gm: User, players: list[User], pcs: list[Character]) -> None:
    # The generic ruleset has no procedures: its rolls are the dice notation.
    spec = RollSpec(kind="notation", data={"expression": "1d20+4"}, character_id=pcs[1].pk, label="Arcanos")
    _roll_post(players[1], scene, pcs[1], "Paso el dedo por las runas del mapa.", spec, [17])


_PLAYS = {
    "fate-sotc": _play_sotc,
    "fate-accelerated": _play_fae,
    "event": _play_event,
    "presagios": _play_presagios,
    "dont-rest-your-head": _play_dryh,
    "generic": _play_generic,
}


def _play(ruleset: str, scene: Scene, gm: User, players: list[User], pcs: list[Character]) -> None:
    _PLAYS[ruleset](scene, gm, players, pcs)


def load_demo() -> list[Campaign]:
    """Create the missing demo users and campaigns; return the campaigns created this time. The demo's posts
    and invitations are the site's own script, so no write limit counts them (`make run` loads it at once)."""
    with limits_paused():
        return _load_demo()


def _load_demo() -> list[Campaign]:
    for username in DEMO_USERS:
        _user(username)
    gm = _user("directora")
    created = []
    for spec in CAMPAIGNS:
        campaign = _load_campaign(spec, gm)
        if campaign is not None:
            created.append(campaign)
    return created
