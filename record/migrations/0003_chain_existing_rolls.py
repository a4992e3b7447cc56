"""Rolls made before the chain existed join it, campaign by campaign, in the order they were made."""

import secrets

from django.db import migrations

from record.rollchain import GENESIS, commitment_of, link_hash


def chain_existing(apps, schema_editor):
    Roll = apps.get_model("rolls", "Roll")
    RollChain = apps.get_model("record", "RollChain")
    RollLink = apps.get_model("record", "RollLink")
    chains = {}
    for roll in Roll.objects.select_related("roller", "character").order_by("campaign_id", "id").iterator(chunk_size=500):
        chain = chains.get(roll.campaign_id)
        if chain is None:
            chain = chains[roll.campaign_id] = RollChain.objects.create(campaign_id=roll.campaign_id, head=GENESIS)
        content = {
            "roll": roll.pk,
            "post": roll.post_id,
            "scene": roll.scene_id,
            "roller": roll.roller.username,
            "character": roll.character.name if roll.character_id else None,
            "ruleset": roll.ruleset,
            "kind": roll.kind,
            "label": roll.label,
            "request": roll.request,
            "result": roll.result,
            "gm_only": roll.gm_only,
            "time": roll.created_at.isoformat(),
        }
        salt = secrets.token_hex(16)
        seq = chain.length + 1
        commitment = commitment_of(salt, content)
        digest = link_hash(seq, chain.head, commitment)
        RollLink.objects.create(
            campaign_id=roll.campaign_id, roll=roll, seq=seq, prev=chain.head, salt=salt, content=content,
            commitment=commitment, hash=digest,
        )
        chain.length, chain.head = seq, digest
    for chain in chains.values():
        chain.save()


class Migration(migrations.Migration):
    dependencies = [("record", "0002_roll_chain")]

    operations = [migrations.RunPython(chain_existing, migrations.RunPython.noop)]
