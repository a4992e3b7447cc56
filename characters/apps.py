from django.apps import AppConfig
from django.db.models.signals import post_delete
from django.utils.translation import gettext_lazy as _


class CharactersConfig(AppConfig):
    name = "characters"
    verbose_name = _("Personajes")

    def ready(self) -> None:
        from characters.models import Character
        from characters.portraits import delete_portrait_of_deleted_character

        # Cascades (a deleted campaign) send post_delete per row too: no portrait outlives its character.
        post_delete.connect(delete_portrait_of_deleted_character, sender=Character, dispatch_uid="portrait-files")
